package sprintfconv

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports fmt.Sprintf calls in loops that only convert one
// integer, string or bool to a string.
var Analyzer = &analysis.Analyzer{
	Name:             "sprintfconv",
	Doc:              doc,
	URL:              lintutil.RulesURL + "sprintfconv",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

func run(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	for _, fc := range lintutil.Files(pass) {
		file := fc.Node().(*ast.File)
		for c := range fc.Preorder((*ast.CallExpr)(nil)) {
			call := c.Node().(*ast.CallExpr)
			if len(call.Args) != 2 || call.Ellipsis.IsValid() || !lintutil.IsFunc(info, call, "fmt", "Sprintf") {
				continue
			}
			tv, ok := info.Types[call.Args[0]]
			if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
				continue
			}
			verb := constant.StringVal(tv.Value)
			if verb != "%d" && verb != "%s" && verb != "%v" && verb != "%t" {
				continue
			}
			if lintutil.Where(info, c).Loop == nil {
				continue
			}
			arg := call.Args[1]
			pkg, format, ok := conversion(info, verb, arg)
			if !ok {
				continue
			}
			text := lintutil.Text(pass.Fset, arg)
			if pkg == "" {
				switch ast.Unparen(arg).(type) {
				case *ast.Ident, *ast.SelectorExpr, *ast.CallExpr, *ast.BasicLit, *ast.IndexExpr:
				default:
					text = "(" + text + ")"
				}
			}
			d := analysis.Diagnostic{
				Pos: call.Pos(),
				End: call.End(),
			}
			var edits []analysis.TextEdit
			name := pkg
			if pkg != "" {
				var ok bool
				name, edits, ok = lintutil.AddImport(info, pass.Pkg, file, pkg, call.Pos())
				if !ok {
					name = pkg
					edits = nil
				}
			}
			repl := fmt.Sprintf(format, name, text)
			d.Message = fmt.Sprintf("fmt.Sprintf(%q, x) in a loop boxes x and interprets the format on every iteration; use %s", verb, fmt.Sprintf(format, pkg, "x"))
			if pkg == "" || edits != nil || lintutil.ImportName(file, pkg) != "" {
				edits = append(edits, analysis.TextEdit{Pos: call.Pos(), End: call.End(), NewText: []byte(repl)})
				d.SuggestedFixes = []analysis.SuggestedFix{{Message: "Convert directly", TextEdits: edits}}
			}
			pass.Report(d)
		}
	}
	return nil, nil
}

// conversion returns the package to import ("" for none) and a format
// taking the package name and the argument text, giving code that produces
// exactly what Sprintf(verb, x) would.
func conversion(info *types.Info, verb string, arg ast.Expr) (pkg, format string, ok bool) {
	t := info.TypeOf(arg)
	if t == nil {
		return "", "", false
	}
	// Methods (String, Error, Format) change what fmt prints.
	if types.NewMethodSet(t).Len() > 0 {
		return "", "", false
	}
	b, isBasic := t.Underlying().(*types.Basic)
	if !isBasic {
		return "", "", false
	}
	named := !types.Identical(t, types.Typ[b.Kind()])
	switch {
	case b.Info()&types.IsInteger != 0 && (verb == "%d" || verb == "%v"):
		switch {
		case b.Kind() == types.Int && !named:
			return "strconv", "%s.Itoa(%s)", true
		case b.Kind() == types.Int64 && !named:
			return "strconv", "%s.FormatInt(%s, 10)", true
		case b.Kind() == types.Uint64 && !named:
			return "strconv", "%s.FormatUint(%s, 10)", true
		case b.Info()&types.IsUnsigned != 0:
			return "strconv", "%s.FormatUint(uint64(%s), 10)", true
		default:
			return "strconv", "%s.FormatInt(int64(%s), 10)", true
		}
	case b.Info()&types.IsString != 0 && (verb == "%s" || verb == "%v"):
		if named {
			return "", "%.0sstring(%s)", true
		}
		return "", "%.0s%s", true
	case b.Kind() == types.Bool && (verb == "%t" || verb == "%v"):
		if named {
			return "strconv", "%s.FormatBool(bool(%s))", true
		}
		return "strconv", "%s.FormatBool(%s)", true
	}
	return "", "", false
}
