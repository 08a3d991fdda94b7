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
	"errors"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/gcdoctor/gcdoctor/internal/plural"
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
	// of the main module (edits that overlap an earlier accepted fix are
	// skipped, see Result.Skipped) and gofmts the result. Files are
	// replaced atomically.
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
	// NoFix says why the check's fix is not offered (the lines it edits
	// are rewritten by cgo, say); empty when there is none to refuse.
	NoFix string `json:"no_fix,omitempty"`
	// Fixed is set when Options.Fix applied the first suggested fix.
	Fixed bool `json:"fixed,omitempty"`
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
	// Skipped lists, when Options.Fix is set, the files with fixes left
	// out and why: outside the main module, read-only, not placeable in
	// the file on disk, or overlapping another fix.
	Skipped []SkippedFile `json:"skipped_files,omitempty"`
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
	var fixErr error
	if opts.Fix {
		plan := planFixes(res.Diagnostics, owners(pkgs).whyNot)
		res.Fixed, fixErr = plan.apply(res.Diagnostics)
		res.Skipped = plan.skipped
	}
	// Paths are absolute for applying fixes; report them relative to dir.
	for i := range res.Diagnostics {
		d := &res.Diagnostics[i]
		d.File = relativize(absDir, d.File)
		for j := range d.SuggestedFixes {
			for k := range d.SuggestedFixes[j].Edits {
				e := &d.SuggestedFixes[j].Edits[k]
				e.File = relativize(absDir, e.File)
			}
		}
	}
	for i := range res.Fixed {
		res.Fixed[i] = relativize(absDir, res.Fixed[i])
	}
	for i := range res.Skipped {
		res.Skipped[i].File = relativize(absDir, res.Skipped[i].File)
	}
	return res, fixErr
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

// Left returns the findings --fix did not fix (all of them without --fix),
// and how many of those are at least as severe as minSeverity ("info",
// "warning" or "critical"; a finding without a severity is a warning).
func (r *Result) Left(minSeverity string) (left []Diagnostic, over int) {
	rank := func(s string) int {
		switch s {
		case "info":
			return 0
		case "critical":
			return 2
		}
		return 1
	}
	for _, d := range r.Diagnostics {
		if d.Fixed {
			continue
		}
		left = append(left, d)
		if rank(d.Severity) >= rank(minSeverity) {
			over++
		}
	}
	return left, over
}

// Failure says why a run of the checks fails, nil when it passes: first
// findings at or above failOn (threshold is then true: --fail-on has an
// exit status of its own), then packages that do not compile, then
// findings left. Without failOn the checks fail on any finding, as go vet
// and staticcheck do; with it, only on findings that severe.
func (r *Result) Failure(failOn string) (threshold bool, err error) {
	left, over := r.Left(failOn)
	switch {
	case failOn != "" && over > 0:
		return true, fmt.Errorf("%s at or above %s", plural.Count(over, "finding", "findings"), failOn)
	case len(r.Broken) > 0:
		return false, fmt.Errorf("%d packages do not compile (checked as far as possible)", len(r.Broken))
	case failOn == "" && len(left) > 0:
		return false, errors.New(plural.Count(len(left), "finding", "findings"))
	}
	return false, nil
}
