package lint

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"runtime"
	"sort"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Loading works like go vet's: go list builds every package and reports
// the file holding its export data (the compiler's summary of its types,
// cached by the go command), and each package to check is parsed and
// type-checked from source on its own, against the export data of its
// imports. Packages therefore do not wait for each other, and no package
// other than those checked is type-checked from source. (go/packages,
// asked for syntax and types of the matched packages only, still
// type-checks from source every package on a path between two matched
// ones — most of crypto/... for net/... — and one after the other along
// the import graph.)
//
// Export data is missing when a dependency does not compile; the checks
// then fall back to go/packages, which type-checks such dependencies from
// source as far as it can.

// listMode asks go list for what the export-data loader needs.
const listMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
	packages.NeedDeps | packages.NeedExportFile | packages.NeedTypesSizes | packages.NeedModule

// sourceMode is the go/packages mode of the fallback: types and syntax of
// the matched packages, their dependencies from export data when it exists.
const sourceMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
	packages.NeedTypes | packages.NeedTypesSizes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule

// parseMode is the parser mode of both loaders. No check uses ast.Object,
// so object resolution is skipped: it is a tenth of parsing.
const parseMode = parser.AllErrors | parser.ParseComments | parser.SkipObjectResolution

// pkgResult is what checking one matched package produced.
type pkgResult struct {
	broken         *PackageError
	diags          []Diagnostic // paths absolute, generated files left out
	analysisErrors []string
	checked        bool // the package had syntax and types to check
}

// exportDataComplete reports whether every package imported, directly or
// not, by the roots has export data, and no package is a test variant
// (whose import path is shared with another package, which one map of
// export data keyed by import path cannot tell apart).
func exportDataComplete(roots []*packages.Package) bool {
	complete := true
	packages.Visit(roots, func(p *packages.Package) bool {
		if p.ID != p.PkgPath {
			complete = false
		}
		for _, imp := range p.Imports {
			if imp.ExportFile == "" && imp.PkgPath != "unsafe" {
				complete = false
			}
		}
		return complete
	}, nil)
	return complete
}

// exportImporter imports packages from export data, reading each file
// once for all packages checked. gcexportdata.Read may fill in packages
// already in the map (those only referred to by export data read before),
// so reads are serialized, as go/packages does.
type exportImporter struct {
	fset *token.FileSet
	mu   sync.Mutex
	pkgs map[string]*types.Package // by import path, complete or not
}

func (imp *exportImporter) importPackage(dep *packages.Package) (*types.Package, error) {
	if dep.PkgPath == "unsafe" {
		return types.Unsafe, nil
	}
	imp.mu.Lock()
	defer imp.mu.Unlock()
	if p := imp.pkgs[dep.PkgPath]; p != nil && p.Complete() {
		return p, nil
	}
	f, err := os.Open(dep.ExportFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := gcexportdata.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", dep.ExportFile, err)
	}
	return gcexportdata.Read(r, imp.fset, imp.pkgs, dep.PkgPath)
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// checkFromExportData checks each root on its own, in parallel (one worker
// per CPU), and returns the results in the order of roots.
func checkFromExportData(roots []*packages.Package, analyzers []*analysis.Analyzer, cache *resultCache) []pkgResult {
	fset := token.NewFileSet()
	imp := &exportImporter{fset: fset, pkgs: map[string]*types.Package{}}
	results := make([]pkgResult, len(roots))
	// Larger packages first, so that the last one to finish is small.
	order := make([]int, len(roots))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return len(roots[order[a]].CompiledGoFiles) > len(roots[order[b]].CompiledGoFiles)
	})
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(roots)) {
		wg.Go(func() {
			for i := range next {
				results[i] = checkPackage(roots[i], fset, imp, analyzers, cache)
			}
		})
	}
	for _, i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// checkPackage parses, type-checks and analyzes one package, or takes its
// diagnostics from the cache.
func checkPackage(p *packages.Package, fset *token.FileSet, imp *exportImporter, analyzers []*analysis.Analyzer, cache *resultCache) pkgResult {
	var res pkgResult
	if len(p.CompiledGoFiles) == 0 {
		if p.ExportFile != "" {
			p.Errors = append(p.Errors, packages.Error{Pos: "-", Msg: "sources missing for package " + p.ID, Kind: packages.ParseError})
		}
		res.broken = brokenPackage(p)
		return res
	}
	srcs := make([][]byte, len(p.CompiledGoFiles))
	var readErrs []error
	for i, name := range p.CompiledGoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			readErrs = append(readErrs, err)
		}
		srcs[i] = src
	}
	var key cacheKey
	if cache != nil && len(p.Errors) == 0 && len(readErrs) == 0 {
		key = cache.key(p, srcs, analyzers)
		if diags, ok := cache.get(key); ok {
			res.diags, res.checked = diags, true
			return res
		}
	}
	addError := func(err error) {
		switch err := err.(type) {
		case *os.PathError:
			p.Errors = append(p.Errors, packages.Error{Pos: err.Path + ":1", Msg: err.Err.Error(), Kind: packages.ParseError})
		case scanner.ErrorList:
			for _, e := range err {
				p.Errors = append(p.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
			}
		case types.Error:
			p.TypeErrors = append(p.TypeErrors, err)
			p.Errors = append(p.Errors, packages.Error{Pos: err.Fset.Position(err.Pos).String(), Msg: err.Msg, Kind: packages.TypeError})
		default:
			p.Errors = append(p.Errors, packages.Error{Pos: "-", Msg: err.Error(), Kind: packages.UnknownError})
		}
	}
	for _, err := range readErrs {
		addError(err)
	}
	for i, name := range p.CompiledGoFiles {
		if srcs[i] == nil {
			continue
		}
		f, err := parser.ParseFile(fset, name, srcs[i], parseMode)
		if err != nil {
			addError(err)
		}
		if f != nil {
			p.Syntax = append(p.Syntax, f)
		}
	}
	p.Fset = fset
	p.Types = types.NewPackage(p.PkgPath, p.Name)
	p.TypesInfo = &types.Info{
		Types:        make(map[ast.Expr]types.TypeAndValue),
		Defs:         make(map[*ast.Ident]types.Object),
		Uses:         make(map[*ast.Ident]types.Object),
		Implicits:    make(map[ast.Node]types.Object),
		Instances:    make(map[*ast.Ident]types.Instance),
		Scopes:       make(map[ast.Node]*types.Scope),
		Selections:   make(map[*ast.SelectorExpr]*types.Selection),
		FileVersions: make(map[*ast.File]string),
	}
	tc := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			dep := p.Imports[path]
			if dep == nil {
				return nil, fmt.Errorf("no metadata for %s", path)
			}
			return imp.importPackage(dep)
		}),
		Error: addError,
		Sizes: p.TypesSizes,
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		tc.GoVersion = "go" + p.Module.GoVersion
	}
	typErr := types.NewChecker(tc, fset, p.Types, p.TypesInfo).Files(p.Syntax)
	if typErr != nil && len(p.Errors) == 0 {
		addError(typErr)
	}
	p.IllTyped = len(p.Errors) > 0
	res.broken = brokenPackage(p)
	if len(p.Syntax) == 0 {
		return res
	}
	res.checked = true
	// Facts flow within the package only: its imports were read from
	// export data and have no syntax to analyze, so the checker, which
	// would run the analyzers that use facts on them too, is not shown
	// them. (go vet -vettool, and the fallback below, carry facts across
	// packages.)
	own := *p
	own.Imports = nil
	graph, err := checker.Analyze(analyzers, []*packages.Package{&own}, &checker.Options{Sequential: true})
	if err != nil {
		res.analysisErrors = append(res.analysisErrors, err.Error())
		return res
	}
	files := newSourceFiles()
	for i, name := range p.CompiledGoFiles {
		files.add(name, srcs[i])
	}
	res.diags, res.analysisErrors = collect(graph.Roots, generatedFiles(p), files)
	// The syntax and types are no longer needed: let the collector have them.
	p.Syntax, p.TypesInfo, p.Types = nil, nil, nil
	if cache != nil && key != (cacheKey{}) && len(p.Errors) == 0 && len(res.analysisErrors) == 0 {
		cache.put(key, res.diags)
	}
	return res
}

// checkFromSource is the fallback: go/packages loads the roots with syntax
// and types, and their dependencies from export data or, where there is
// none, from source.
func checkFromSource(cfg *packages.Config, patterns []string, analyzers []*analysis.Analyzer) ([]pkgResult, error) {
	cfg.Mode = sourceMode
	cfg.ParseFile = func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
		return parser.ParseFile(fset, filename, src, parseMode)
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading packages: %w", err)
	}
	results := make([]pkgResult, len(pkgs))
	var ok []*packages.Package
	index := map[*packages.Package]int{}
	generated := map[string]bool{}
	for i, p := range pkgs {
		results[i].broken = brokenPackage(p)
		if p.Types != nil && p.TypesInfo != nil && len(p.Syntax) > 0 {
			ok = append(ok, p)
			index[p] = i
			results[i].checked = true
			for name := range generatedFiles(p) {
				generated[name] = true
			}
		}
	}
	if len(ok) == 0 {
		return results, nil
	}
	pruneImports(ok)
	graph, err := checker.Analyze(analyzers, ok, nil)
	if err != nil {
		return nil, err
	}
	files := newSourceFiles()
	for _, act := range graph.Roots {
		r := &results[index[act.Package]]
		diags, errs := collect([]*checker.Action{act}, generated, files)
		r.diags = append(r.diags, diags...)
		r.analysisErrors = append(r.analysisErrors, errs...)
	}
	return results, nil
}

// pruneImports leaves in the imports of pkgs only the packages among
// them: the checker runs analyzers that use facts on every import, and
// the others have types from export data but no syntax to analyze. Facts
// then flow between the packages checked.
func pruneImports(pkgs []*packages.Package) {
	checked := make(map[*packages.Package]bool, len(pkgs))
	for _, p := range pkgs {
		checked[p] = true
	}
	for _, p := range pkgs {
		imports := make(map[string]*packages.Package)
		for path, dep := range p.Imports {
			if checked[dep] {
				imports[path] = dep
			}
		}
		p.Imports = imports
	}
}

// brokenPackage returns the errors of p, or nil.
func brokenPackage(p *packages.Package) *PackageError {
	if len(p.Errors) == 0 {
		return nil
	}
	pe := &PackageError{Package: p.PkgPath}
	if pe.Package == "" {
		pe.Package = p.ID
	}
	for _, e := range p.Errors {
		pe.Errors = append(pe.Errors, e.Error())
	}
	return pe
}

// generatedFiles returns the names of the generated files of p.
func generatedFiles(p *packages.Package) map[string]bool {
	generated := map[string]bool{}
	for _, f := range p.Syntax {
		if lintutil.Generated(f) {
			generated[p.Fset.File(f.Pos()).Name()] = true
		}
	}
	return generated
}

// collect converts the diagnostics of actions, leaving out those in
// generated files, and carries their fixes over to the files on disk (see
// fixpos.go); files supplies the content of the files. File names stay
// absolute.
func collect(actions []*checker.Action, generated map[string]bool, files *sourceFiles) (diags []Diagnostic, analysisErrors []string) {
	for _, act := range actions {
		if act.Err != nil {
			analysisErrors = append(analysisErrors, fmt.Sprintf("%s: %v", act, act.Err))
			continue
		}
		fset := act.Package.Fset
		for _, d := range act.Diagnostics {
			// Whether a file is generated is a property of the file
			// read, not of the one a //line directive names.
			if generated[fset.PositionFor(d.Pos, false).Filename] {
				continue
			}
			pos := fset.Position(d.Pos)
			diag := Diagnostic{
				Rule:     act.Analyzer.Name,
				File:     pos.Filename,
				Line:     pos.Line,
				Column:   pos.Column,
				Message:  d.Message,
				Severity: "warning",
			}
			if d.Category == "info" {
				diag.Severity = "info"
			}
			for _, sf := range d.SuggestedFixes {
				fix := Fix{Message: sf.Message}
				whyNot := ""
				for _, e := range sf.TextEdits {
					edit, why := files.mapEdit(fset, e)
					if why != "" {
						whyNot = why
						break
					}
					fix.Edits = append(fix.Edits, edit)
				}
				if whyNot != "" {
					if diag.NoFix == "" {
						diag.NoFix = whyNot
					}
					continue
				}
				diag.SuggestedFixes = append(diag.SuggestedFixes, fix)
			}
			if len(diag.SuggestedFixes) > 0 {
				diag.NoFix = ""
			}
			diags = append(diags, diag)
		}
	}
	return diags, analysisErrors
}

var errNoPackages = errors.New("no package could be loaded")
