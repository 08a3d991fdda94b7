// Package lint finds Go code that makes the garbage collector work harder
// than it needs to: allocations repeated on every loop iteration or every
// HTTP request, buffers and strings grown piecemeal, forced collections.
//
// Each check is a golang.org/x/tools/go/analysis Analyzer in its own
// package under lint/ (see Analyzers), usable with go vet through
// cmd/gcdoctor-vet. Run loads and checks packages programmatically and can
// apply the suggested fixes.
package lint

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/gcdoctor/gcdoctor/lint/appendprealloc"
	"github.com/gcdoctor/gcdoctor/lint/copybuffer"
	"github.com/gcdoctor/gcdoctor/lint/forcedgc"
	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
	"github.com/gcdoctor/gcdoctor/lint/largebufalloc"
	"github.com/gcdoctor/gcdoctor/lint/largestackvar"
	"github.com/gcdoctor/gcdoctor/lint/mapprealloc"
	"github.com/gcdoctor/gcdoctor/lint/poolputnonptr"
	"github.com/gcdoctor/gcdoctor/lint/regexpcompile"
	"github.com/gcdoctor/gcdoctor/lint/sprintfconv"
	"github.com/gcdoctor/gcdoctor/lint/stringconcatloop"
	"github.com/gcdoctor/gcdoctor/lint/timeafterloop"
	"github.com/gcdoctor/gcdoctor/lint/unboundedgo"
)

// Analyzers returns every gcdoctor check, in rule-ID order.
func Analyzers() []*analysis.Analyzer {
	all := []*analysis.Analyzer{
		appendprealloc.Analyzer,
		copybuffer.Analyzer,
		forcedgc.Analyzer,
		largebufalloc.Analyzer,
		largestackvar.Analyzer,
		mapprealloc.Analyzer,
		poolputnonptr.Analyzer,
		regexpcompile.Analyzer,
		sprintfconv.Analyzer,
		stringconcatloop.Analyzer,
		timeafterloop.Analyzer,
		unboundedgo.Analyzer,
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}

// Lookup returns the analyzer with the given rule ID, or nil.
func Lookup(rule string) *analysis.Analyzer {
	for _, a := range Analyzers() {
		if a.Name == rule {
			return a
		}
	}
	return nil
}

// Title returns the one-line title of an analyzer (the first line of its
// documentation, without the rule ID).
func Title(a *analysis.Analyzer) string {
	return strings.TrimPrefix(lintutil.Title(a.Doc), a.Name+": ")
}

// Options controls Run.
type Options struct {
	// Analyzers to run; nil means Analyzers().
	Analyzers []*analysis.Analyzer
	// Fix applies the first suggested fix of every diagnostic to the files
	// (edits that overlap an earlier accepted fix are skipped) and gofmts
	// the result.
	Fix bool
	// Tests also loads test packages. The checks skip _test.go files, so
	// this only matters for code in non-test files of test variants.
	Tests bool
	// Env is the environment for the go command; nil means os.Environ().
	Env []string
	// BuildFlags are passed to the go command (for example -tags).
	BuildFlags []string
	// NoCache turns off the result cache (see cache.go), which is also
	// off when the environment has GCDOCTOR_LINT_CACHE=off.
	NoCache bool
}

// Diagnostic is one finding.
type Diagnostic struct {
	Rule     string `json:"rule"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Message  string `json:"message"`
	Severity string `json:"severity,omitempty"` // "warning" (default) or "info"
	// SuggestedFixes are the mechanical rewrites that address the finding.
	SuggestedFixes []Fix `json:"suggested_fixes,omitempty"`
}

// Fix is a suggested fix: a set of edits to apply together.
type Fix struct {
	Message string `json:"message"`
	Edits   []Edit `json:"edits"`
}

// Edit replaces the bytes [Offset, End) of File with NewText.
type Edit struct {
	File    string `json:"file"`
	Offset  int    `json:"offset"`
	End     int    `json:"end"`
	NewText string `json:"new_text"`
}

// PackageError lists the errors of a package that does not load or
// type-check. Its other files are still checked as far as possible.
type PackageError struct {
	Package string   `json:"package"`
	Errors  []string `json:"errors"`
}

// Result is what Run found.
type Result struct {
	Diagnostics []Diagnostic   `json:"diagnostics"`
	Broken      []PackageError `json:"broken_packages,omitempty"`
	// AnalysisErrors are failures of a check on a package (never expected).
	AnalysisErrors []string `json:"analysis_errors,omitempty"`
	// Fixed lists the files rewritten when Options.Fix is set.
	Fixed []string `json:"fixed_files,omitempty"`
}

// Run loads the packages matching patterns (default "./...") in dir, runs
// the checks on them and returns the diagnostics sorted by file and
// position. Packages with errors are reported in Result.Broken and checked
// as far as their syntax and types allow. Generated files are skipped.
func Run(dir string, patterns []string, opts Options) (*Result, error) {
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	analyzers := opts.Analyzers
	if analyzers == nil {
		analyzers = Analyzers()
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(absDir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	cfg := &packages.Config{
		Mode:       listMode,
		Dir:        absDir,
		Env:        env,
		Tests:      opts.Tests,
		BuildFlags: opts.BuildFlags,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading packages: %w", err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no packages match %s in %s", strings.Join(patterns, " "), dir)
	}
	var results []pkgResult
	if !opts.Tests && exportDataComplete(pkgs) {
		var cache *resultCache
		if !opts.NoCache {
			cache = openCache()
		}
		results = checkFromExportData(pkgs, analyzers, cache)
	} else {
		results, err = checkFromSource(cfg, patterns, analyzers)
		if err != nil {
			return nil, err
		}
	}
	res := &Result{Diagnostics: []Diagnostic{}}
	checked := false
	seen := map[string]bool{}
	for _, r := range results {
		if r.broken != nil {
			pe := *r.broken
			for i, e := range pe.Errors {
				pe.Errors[i] = relativize(absDir, e)
			}
			res.Broken = append(res.Broken, pe)
		}
		checked = checked || r.checked
		res.AnalysisErrors = append(res.AnalysisErrors, r.analysisErrors...)
		for _, diag := range r.diags {
			key := fmt.Sprintf("%s:%d:%d:%s:%s", diag.File, diag.Line, diag.Column, diag.Rule, diag.Message)
			if seen[key] {
				continue // the same file in a package and its test variant
			}
			seen[key] = true
			diag.File = relativize(absDir, diag.File)
			res.Diagnostics = append(res.Diagnostics, diag)
		}
	}
	if !checked {
		if len(res.Broken) > 0 {
			return res, nil
		}
		return nil, errNoPackages
	}
	sort.SliceStable(res.Diagnostics, func(i, j int) bool {
		a, b := res.Diagnostics[i], res.Diagnostics[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Rule < b.Rule
	})
	if opts.Fix {
		fixed, err := applyFixes(res.Diagnostics)
		for _, f := range fixed {
			res.Fixed = append(res.Fixed, relativize(absDir, f))
		}
		if err != nil {
			return res, err
		}
	}
	// Edit paths are absolute for applying; report them like File.
	for i := range res.Diagnostics {
		for j := range res.Diagnostics[i].SuggestedFixes {
			for k := range res.Diagnostics[i].SuggestedFixes[j].Edits {
				e := &res.Diagnostics[i].SuggestedFixes[j].Edits[k]
				e.File = relativize(absDir, e.File)
			}
		}
	}
	return res, nil
}

// applyFixes applies the first fix of each diagnostic, skipping fixes that
// overlap an accepted one, and gofmts the changed files.
func applyFixes(diags []Diagnostic) ([]string, error) {
	type edit struct {
		Edit
		seq int
	}
	perFile := map[string][]edit{}
	accepted := map[string][]edit{}
	seq := 0
	for _, d := range diags {
		if len(d.SuggestedFixes) == 0 {
			continue
		}
		fix := d.SuggestedFixes[0]
		conflict := false
		for _, e := range fix.Edits {
			for _, a := range accepted[e.File] {
				if e.Offset < a.End && a.Offset < e.End {
					conflict = true
				}
				if e.Offset == a.Offset && e.End == a.End && e.NewText == a.NewText {
					continue
				}
				if e.Offset == e.End && a.Offset == a.End {
					continue // two insertions at one point: keep both
				}
				if e.Offset == a.Offset && (e.Offset == e.End) != (a.Offset == a.End) {
					conflict = true
				}
			}
		}
		if conflict {
			continue
		}
		for _, e := range fix.Edits {
			dup := false
			for _, a := range accepted[e.File] {
				if e.Offset == a.Offset && e.End == a.End && e.NewText == a.NewText {
					dup = true // an identical edit (the same import) from another fix
				}
			}
			if dup {
				continue
			}
			seq++
			accepted[e.File] = append(accepted[e.File], edit{e, seq})
			perFile[e.File] = append(perFile[e.File], edit{e, seq})
		}
	}
	var files []string
	for f := range perFile {
		files = append(files, f)
	}
	sort.Strings(files)
	var errs []error
	var fixed []string
	for _, f := range files {
		edits := perFile[f]
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
			if e.Offset < last || e.End > len(src) {
				continue
			}
			out.Write(src[last:e.Offset])
			out.WriteString(e.NewText)
			last = e.End
		}
		out.Write(src[last:])
		formatted, err := format.Source(out.Bytes())
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: fixed code does not parse, file left unchanged: %v", f, err))
			continue
		}
		if err := writeFileKeepMode(f, formatted); err != nil {
			errs = append(errs, err)
			continue
		}
		fixed = append(fixed, f)
	}
	return fixed, errors.Join(errs...)
}

func writeFileKeepMode(name string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
	}
	return os.WriteFile(name, data, mode)
}

// relativize shortens paths under dir in s.
func relativize(dir, s string) string {
	if rel, err := filepath.Rel(dir, s); err == nil && !strings.HasPrefix(rel, "..") && filepath.IsAbs(s) {
		return rel
	}
	return strings.ReplaceAll(s, dir+string(filepath.Separator), "")
}

// Position returns a token.Position for d (for printing "file:line:col").
func (d Diagnostic) Position() token.Position {
	return token.Position{Filename: d.File, Line: d.Line, Column: d.Column}
}

// String formats d as "file:line:col: message [rule]".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s [%s]", d.Position(), d.Message, d.Rule)
}
