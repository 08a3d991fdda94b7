package regexpcompile

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports regular expressions and templates with constant text
// compiled on every loop iteration or every HTTP request.
var Analyzer = &analysis.Analyzer{
	Name:             "regexpcompile",
	Doc:              doc,
	URL:              lintutil.RulesURL + "regexpcompile",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

var templatePkgs = []string{"text/template", "html/template"}

func run(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	taken := map[string]bool{}
	for _, fc := range lintutil.Files(pass) {
		file := fc.Node().(*ast.File)
		for c := range fc.Preorder((*ast.CallExpr)(nil)) {
			call := c.Node().(*ast.CallExpr)
			var (
				what    string // description for the message
				hoisted ast.Expr
				suffix  string
				readers map[string]bool // methods that leave the value unchanged
			)
			switch {
			case lintutil.IsFunc(info, call, "regexp", "MustCompile", "MustCompilePOSIX", "Compile", "CompilePOSIX"):
				if len(call.Args) != 1 || !isConst(info, call.Args[0]) {
					continue
				}
				what = lintutil.Text(pass.Fset, call.Fun) + " with a constant pattern"
				if strings.HasPrefix(typeutilName(info, call), "Must") {
					hoisted, suffix = call, "Re"
				}
			case isTemplateParse(info, call):
				// Reported at the enclosing template.Must, if any.
				if must := mustOf(info, c); must != nil {
					continue
				}
				what = "template.New(...).Parse with constant text"
			case isTemplateMust(info, call):
				what = "template.Must(template.New(...).Parse(...)) with constant text"
				hoisted, suffix = call, "Tmpl"
				readers = map[string]bool{"Execute": true, "ExecuteTemplate": true, "Name": true, "DefinedTemplates": true}
			default:
				continue
			}
			place := lintutil.Where(info, c)
			// Code on the loop's way out, or in a case for one key of a
			// map, runs once per loop, not per iteration; the loop may
			// itself be repeated.
			for place.Loop != nil && (lintutil.LeavesLoop(info, c, place.Loop) || lintutil.InKeySwitch(info, c, place.Loop)) {
				place.Loop = lintutil.OuterLoop(info, c, place.Loop)
			}
			if !place.Hot() {
				continue
			}
			where := "on every iteration of a loop"
			if place.Loop == nil {
				where = "on every HTTP request"
			}
			d := analysis.Diagnostic{
				Pos:     call.Pos(),
				End:     call.End(),
				Message: fmt.Sprintf("%s is compiled %s; compile it once into a package-level variable", what, where),
			}
			if hoisted != nil && place.FuncDecl != nil && packageLevelOnly(info, hoisted) && readOnly(info, c, place.Func, readers) {
				base := lowerFirst(place.FuncDecl.Name.Name) + suffix
				name := lintutil.FreeName(pass.Pkg, base, taken, call.Pos())
				for importsName(pass.Files, name) {
					taken[name] = true
					name = lintutil.FreeName(pass.Pkg, base, taken, call.Pos())
				}
				taken[name] = true
				end := place.FuncDecl.End()
				_ = file
				d.SuggestedFixes = []analysis.SuggestedFix{{
					Message: "Hoist to a package-level variable",
					TextEdits: []analysis.TextEdit{
						{Pos: call.Pos(), End: call.End(), NewText: []byte(name)},
						{Pos: end, End: end, NewText: fmt.Appendf(nil, "\n\nvar %s = %s", name, lintutil.Text(pass.Fset, hoisted))},
					},
				}}
			}
			pass.Report(d)
		}
	}
	return nil, nil
}

func typeutilName(info *types.Info, call *ast.CallExpr) string {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		return sel.Sel.Name
	}
	return ""
}

func isConst(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.String
}

// isTemplateParse matches template.New(const).Parse(const).
func isTemplateParse(info *types.Info, call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || len(call.Args) != 1 || !isConst(info, call.Args[0]) {
		return false
	}
	isParse := false
	for _, p := range templatePkgs {
		if lintutil.IsMethod(info, call, p, "Template", "Parse") {
			isParse = true
		}
	}
	if !isParse {
		return false
	}
	inner, ok := ast.Unparen(sel.X).(*ast.CallExpr)
	if !ok || len(inner.Args) != 1 || !isConst(info, inner.Args[0]) {
		return false
	}
	for _, p := range templatePkgs {
		if lintutil.IsFunc(info, inner, p, "New") {
			return true
		}
	}
	return false
}

// isTemplateMust matches template.Must(template.New(const).Parse(const)).
func isTemplateMust(info *types.Info, call *ast.CallExpr) bool {
	for _, p := range templatePkgs {
		if lintutil.IsFunc(info, call, p, "Must") && len(call.Args) == 1 {
			if inner, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr); ok && isTemplateParse(info, inner) {
				return true
			}
		}
	}
	return false
}

// mustOf returns the template.Must call whose argument is the call at c.
func mustOf(info *types.Info, c inspector.Cursor) *ast.CallExpr {
	if must, ok := c.Parent().Node().(*ast.CallExpr); ok && isTemplateMust(info, must) {
		return must
	}
	return nil
}

// packageLevelOnly reports whether every identifier in e denotes a
// package-level or universe object or an imported package, so e can be
// evaluated at package level.
func packageLevelOnly(info *types.Info, e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		id, isIdent := n.(*ast.Ident)
		if !isIdent {
			return ok
		}
		obj := info.Uses[id]
		switch obj := obj.(type) {
		case nil, *types.PkgName, *types.Builtin, *types.TypeName:
		default:
			if obj.Pkg() != nil && obj.Parent() != obj.Pkg().Scope() {
				// Fields and methods are reached through a selector
				// and have no parent scope.
				if v, isVar := obj.(*types.Var); isVar && v.IsField() {
					break
				}
				if _, isFunc := obj.(*types.Func); isFunc {
					break
				}
				ok = false
			}
		}
		return ok
	})
	return ok
}

// readOnly reports whether the value of the call at c is shared safely: used
// directly, or through a variable, only with methods in readers (any method
// but Longest for a *regexp.Regexp when readers is nil).
func readOnly(info *types.Info, c inspector.Cursor, fn ast.Node, readers map[string]bool) bool {
	allowed := func(name string) bool {
		if readers == nil {
			return name != "Longest"
		}
		return readers[name]
	}
	switch p := c.Parent().Node().(type) {
	case *ast.SelectorExpr:
		return allowed(p.Sel.Name)
	case *ast.AssignStmt:
		if len(p.Lhs) != 1 || len(p.Rhs) != 1 {
			return false
		}
		id, ok := p.Lhs[0].(*ast.Ident)
		if !ok {
			return false
		}
		v := info.Defs[id]
		if v == nil {
			v = info.Uses[id]
		}
		if v == nil {
			return false
		}
		fnCursor, ok := c.Inspector().Root().FindNode(fn)
		if !ok {
			return false
		}
		for ic := range fnCursor.Preorder((*ast.Ident)(nil)) {
			if info.Uses[ic.Node().(*ast.Ident)] != v {
				continue
			}
			sel, ok := ic.Parent().Node().(*ast.SelectorExpr)
			if ok && sel.X == ic.Node() {
				if !allowed(sel.Sel.Name) {
					return false
				}
				continue
			}
			if readers != nil {
				return false // a template passed elsewhere may be changed
			}
		}
		return true
	case *ast.CallExpr, *ast.ValueSpec, *ast.ReturnStmt, *ast.KeyValueExpr, *ast.CompositeLit:
		return readers == nil
	}
	return readers == nil
}

func importsName(files []*ast.File, name string) bool {
	for _, f := range files {
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, "\"`")
			n := p[strings.LastIndex(p, "/")+1:]
			if imp.Name != nil {
				n = imp.Name.Name
			}
			if n == name {
				return true
			}
		}
	}
	return false
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
