package lint

import (
	"bytes"
	"errors"
	"fmt"
	"go/build"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/packages"

	"github.com/gcdoctor/gcdoctor/internal/atomicfile"
)

// --fix changes only the files of the main module (or modules, in a
// workspace): the files the user is working on. The standard library, a
// dependency in the read-only module cache, a module brought in by a
// replace directive and vendored code belong to someone else, and a file
// marked read-only says so itself. Their fixes are left out and listed in
// Result.Skipped with the reason, as are fixes that cannot be placed (see
// fixpos.go) and fixes that overlap one applied before.
//
// Each changed file is written the way atomicfile writes: to a temporary
// file in the same directory, synced, then renamed over the original, so
// a full disk or a crash leaves the old source, never half a file.

// SkippedFile is a file whose fixes Run did not apply, with the reason.
type SkippedFile struct {
	File   string `json:"file"`
	Fixes  int    `json:"fixes"` // how many fixes were left out for this reason
	Reason string `json:"reason"`
}

// fileOwners says, for each source file of the packages checked, why
// --fix must leave it alone, or "" when it may change it.
type fileOwners struct {
	why  map[string]string
	stat map[string]string // the read-only check, once per file
}

// owners records the files of roots and the module each belongs to.
func owners(roots []*packages.Package) *fileOwners {
	o := &fileOwners{why: map[string]string{}, stat: map[string]string{}}
	for _, p := range roots {
		why := notMainModule(p)
		for _, f := range p.GoFiles {
			if prev, seen := o.why[f]; !seen || prev != "" {
				o.why[f] = why
			}
		}
	}
	return o
}

// notMainModule returns why --fix leaves the files of p alone, or "" when
// p belongs to a main module.
func notMainModule(p *packages.Package) string {
	const only = "; --fix changes only files of the main module"
	m := p.Module
	switch {
	case m == nil && len(p.GoFiles) > 0 && inGOROOT(p.GoFiles[0]):
		return "in GOROOT, the standard library" + only
	case m == nil:
		return "not in a module (GOPATH mode)" + only
	case m.Main:
		return ""
	case m.Replace != nil:
		return fmt.Sprintf("in module %s, replaced by %s", m.Path, strings.TrimSpace(m.Replace.Path+" "+m.Replace.Version)) + only
	case m.Version != "":
		return fmt.Sprintf("in dependency %s %s", m.Path, m.Version) + only
	}
	return fmt.Sprintf("in dependency %s", m.Path) + only
}

// inGOROOT reports whether file is under the GOROOT gcdoctor was built
// with. It only words the reason: files outside modules are skipped
// either way.
func inGOROOT(file string) bool {
	root := build.Default.GOROOT
	if root == "" {
		return false
	}
	rel, err := filepath.Rel(root, file)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// whyNot returns why --fix may not change file, or "".
func (o *fileOwners) whyNot(file string) string {
	why, known := o.why[file]
	if !known {
		return "not a source file of the packages checked"
	}
	if why != "" {
		return why
	}
	if why, done := o.stat[file]; done {
		return why
	}
	if st, err := os.Stat(file); err != nil {
		why = err.Error()
	} else if st.Mode().Perm()&0o222 == 0 {
		why = "the file is read-only"
	}
	o.stat[file] = why
	return why
}

// plannedEdit is an edit chosen for applying; seq orders edits at the
// same offset in the order their fixes were chosen.
type plannedEdit struct {
	Edit
	seq int
}

// fixPlan is what --fix will do: the edits per file, the files each
// chosen fix touches, and what it leaves out.
type fixPlan struct {
	edits   map[string][]plannedEdit
	chosen  map[int][]string // index of a diagnostic → files its fix edits
	skipped []SkippedFile
}

// planFixes chooses the first fix of each diagnostic, unless whyNot
// refuses a file it edits or it overlaps a fix chosen before. Identical
// edits of two fixes (the same import added) are made once.
func planFixes(diags []Diagnostic, whyNot func(file string) string) *fixPlan {
	p := &fixPlan{edits: map[string][]plannedEdit{}, chosen: map[int][]string{}}
	skipIndex := map[[2]string]int{}
	skip := func(file, reason string) {
		k := [2]string{file, reason}
		if i, ok := skipIndex[k]; ok {
			p.skipped[i].Fixes++
			return
		}
		skipIndex[k] = len(p.skipped)
		p.skipped = append(p.skipped, SkippedFile{File: file, Fixes: 1, Reason: reason})
	}
	seq := 0
	for i, d := range diags {
		if len(d.SuggestedFixes) == 0 {
			if d.NoFix != "" {
				skip(d.File, d.NoFix)
			}
			continue
		}
		fix := d.SuggestedFixes[0]
		refused := false
		for _, e := range fix.Edits {
			if why := whyNot(e.File); why != "" {
				skip(e.File, why)
				refused = true
				break
			}
		}
		if refused || len(fix.Edits) == 0 {
			continue
		}
		if p.overlaps(fix) {
			skip(fix.Edits[0].File, "the fix overlaps another one applied in this run; run --fix again")
			continue
		}
		var files []string
		for _, e := range fix.Edits {
			if !slices.Contains(files, e.File) {
				files = append(files, e.File)
			}
			if p.has(e) {
				continue // an identical edit (the same import) from another fix
			}
			seq++
			p.edits[e.File] = append(p.edits[e.File], plannedEdit{e, seq})
		}
		p.chosen[i] = files
	}
	return p
}

// overlaps reports whether an edit of fix overlaps an edit already
// planned. Identical edits do not overlap, nor do two insertions at one
// point; an insertion at the start of a replacement does.
func (p *fixPlan) overlaps(fix Fix) bool {
	for _, e := range fix.Edits {
		for _, a := range p.edits[e.File] {
			switch {
			case e.Offset == a.Offset && e.End == a.End && e.NewText == a.NewText:
			case e.Offset == e.End && a.Offset == a.End:
			case e.Offset < a.End && a.Offset < e.End:
				return true
			case e.Offset == a.Offset:
				return true
			}
		}
	}
	return false
}

func (p *fixPlan) has(e Edit) bool {
	for _, a := range p.edits[e.File] {
		if e.Offset == a.Offset && e.End == a.End && e.NewText == a.NewText {
			return true
		}
	}
	return false
}

// apply makes the planned edits, gofmts each file and writes it back,
// marks the diagnostics whose fix was written in full as Fixed, and
// returns the files written. A file whose fixed code does not parse, or
// that cannot be written, is left as it was and reported in the error.
func (p *fixPlan) apply(diags []Diagnostic) ([]string, error) {
	files := make([]string, 0, len(p.edits))
	for f := range p.edits {
		files = append(files, f)
	}
	sort.Strings(files)
	var errs []error
	var fixed []string
	written := map[string]bool{}
	for _, f := range files {
		edits := p.edits[f]
		sort.SliceStable(edits, func(i, j int) bool {
			if edits[i].Offset != edits[j].Offset {
				return edits[i].Offset < edits[j].Offset
			}
			return edits[i].seq < edits[j].seq
		})
		src, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var out bytes.Buffer
		last := 0
		for _, e := range edits {
			if e.Offset < last || e.End > len(src) || e.End < e.Offset {
				continue
			}
			out.Write(src[last:e.Offset])
			out.WriteString(e.NewText)
			last = e.End
		}
		out.Write(src[last:])
		formatted, err := formatFixed(src, out.Bytes())
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: fixed code does not parse, file left unchanged: %v", f, err))
			continue
		}
		if err := writeSource(f, formatted); err != nil {
			errs = append(errs, fmt.Errorf("%s: file left unchanged: %w", f, err))
			continue
		}
		written[f] = true
		fixed = append(fixed, f)
	}
	for i, files := range p.chosen {
		all := true
		for _, f := range files {
			all = all && written[f]
		}
		diags[i].Fixed = all
	}
	return fixed, errors.Join(errs...)
}

// formatFixed gofmts the fixed content of a file after removing the
// imports that the original used and the fixed code no longer does (fmt,
// once a fix replaced its last fmt.Sprintf), so that the file still
// compiles, as go vet -fix does. Imports unused before the fixes, blank
// and dot imports and import "C" are kept.
func formatFixed(orig, fixed []byte) ([]byte, error) {
	fset := token.NewFileSet()
	after, err := parser.ParseFile(fset, "", fixed, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	before, err := parser.ParseFile(token.NewFileSet(), "", orig, parser.ParseComments)
	if err != nil {
		return format.Source(fixed) // nothing to compare with
	}
	deleted := false
	for _, imp := range slices.Clone(after.Imports) {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil || path == "C" || imp.Name != nil && (imp.Name.Name == "_" || imp.Name.Name == ".") {
			continue
		}
		if astutil.UsesImport(before, path) && !astutil.UsesImport(after, path) {
			name := ""
			if imp.Name != nil {
				name = imp.Name.Name
			}
			deleted = astutil.DeleteNamedImport(fset, after, name, path) || deleted
		}
	}
	if !deleted {
		return format.Source(fixed)
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, after); err != nil {
		return nil, err
	}
	return format.Source(buf.Bytes())
}

// testHookWriter, when set, wraps the writer a fixed file is written
// through, so that tests can make the write fail part-way.
var testHookWriter func(io.Writer) io.Writer

// writeSource replaces a source file atomically, keeping its mode.
func writeSource(name string, data []byte) error {
	return atomicfile.Write(name, 0o644, func(w io.Writer) error {
		if testHookWriter != nil {
			w = testHookWriter(w)
		}
		_, err := w.Write(data)
		return err
	})
}
