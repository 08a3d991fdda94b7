package stringconcatloop

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports strings built with += across the iterations of a loop.
var Analyzer = &analysis.Analyzer{
	Name:             "stringconcatloop",
	Doc:              doc,
	URL:              lintutil.RulesURL + "stringconcatloop",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

type key struct {
	loop ast.Stmt
	v    *types.Var
}

func run(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	for _, fc := range lintutil.Files(pass) {
		file := fc.Node().(*ast.File)
		seen := map[key]bool{}
		for c := range fc.Preorder((*ast.AssignStmt)(nil)) {
			as := c.Node().(*ast.AssignStmt)
			if as.Tok != token.ADD_ASSIGN || len(as.Lhs) != 1 {
				continue
			}
			v := lintutil.LocalVar(info, as.Lhs[0])
			if v == nil {
				continue
			}
			if b, ok := v.Type().Underlying().(*types.Basic); !ok || b.Info()&types.IsString == 0 {
				continue
			}
			place := lintutil.Where(info, c)
			if place.Loop == nil || v.Pos() >= place.Loop.Pos() {
				continue // not in a loop, or a variable of the iteration
			}
			if seen[key{place.Loop, v}] {
				continue
			}
			seen[key{place.Loop, v}] = true
			if resets(info, lintutil.LoopBody(place.Loop), v) {
				continue // rebuilt from scratch each iteration
			}
			d := analysis.Diagnostic{
				Pos:     as.Pos(),
				End:     as.End(),
				Message: fmt.Sprintf("string %s is built with += in a loop; each += copies the whole string so far (quadratic garbage); use a strings.Builder", v.Name()),
			}
			if fix, ok := builderFix(pass, file, c, place, v); ok {
				d.SuggestedFixes = []analysis.SuggestedFix{fix}
			}
			pass.Report(d)
		}
	}
	return nil, nil
}

// resets reports whether the loop body assigns v with = or :=.
func resets(info *types.Info, body *ast.BlockStmt, v *types.Var) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && (as.Tok == token.ASSIGN || as.Tok == token.DEFINE) {
			for _, l := range as.Lhs {
				if lintutil.LocalVar(info, l) == v {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// builderFix turns v into a strings.Builder when that is mechanical: v is
// declared empty in the statement list holding the loop, every += to it is in
// the loop, and every other use is a plain read outside any closure.
func builderFix(pass *analysis.Pass, file *ast.File, c inspector.Cursor, place lintutil.Place, v *types.Var) (analysis.SuggestedFix, bool) {
	info := pass.TypesInfo
	if !types.Identical(v.Type(), types.Typ[types.String]) {
		return analysis.SuggestedFix{}, false
	}
	loopCursor, ok := c.Inspector().Root().FindNode(place.Loop)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	list, index, ok := lintutil.StmtList(loopCursor)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	decl, _, ok := lintutil.PrecedingDecl(info, list, index, v)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	typ, value := lintutil.DeclValue(decl)
	if value != nil {
		lit, isLit := value.(*ast.BasicLit)
		if !isLit || (lit.Value != `""` && lit.Value != "``") {
			return analysis.SuggestedFix{}, false
		}
	}
	if typ != nil && !types.Identical(info.TypeOf(typ), types.Typ[types.String]) {
		return analysis.SuggestedFix{}, false
	}
	fnCursor, ok := c.Inspector().Root().FindNode(place.Func)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	strs, importEdits, ok := lintutil.AddImport(info, pass.Pkg, file, "strings", decl.Pos())
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	edits := []analysis.TextEdit{{Pos: decl.Pos(), End: decl.End(), NewText: fmt.Appendf(nil, "var %s %s.Builder", v.Name(), strs)}}
	edits = append(edits, importEdits...)
	handled := map[*ast.Ident]bool{}
	for ac := range fnCursor.Preorder((*ast.AssignStmt)(nil)) {
		as := ac.Node().(*ast.AssignStmt)
		for _, l := range as.Lhs {
			if lintutil.LocalVar(info, l) != v {
				continue
			}
			if as.Tok != token.ADD_ASSIGN || len(as.Lhs) != 1 || as.Pos() < place.Loop.Pos() || as.End() > place.Loop.End() || lintutil.InFuncLit(ac, place.Func) {
				return analysis.SuggestedFix{}, false
			}
			rhs := as.Rhs[0]
			if lintutil.Mentions(info, rhs, v) {
				return analysis.SuggestedFix{}, false
			}
			arg := lintutil.Text(pass.Fset, rhs)
			if t := info.TypeOf(rhs); t != nil && !types.Identical(t, types.Typ[types.String]) && !types.Identical(t, types.Typ[types.UntypedString]) {
				arg = "string(" + arg + ")"
			}
			handled[ast.Unparen(l).(*ast.Ident)] = true
			edits = append(edits, analysis.TextEdit{Pos: as.Pos(), End: as.End(), NewText: fmt.Appendf(nil, "%s.WriteString(%s)", v.Name(), arg)})
		}
	}
	for ic := range fnCursor.Preorder((*ast.Ident)(nil)) {
		id := ic.Node().(*ast.Ident)
		if info.Uses[id] != v || handled[id] {
			continue
		}
		if lintutil.InFuncLit(ic, place.Func) {
			return analysis.SuggestedFix{}, false
		}
		if un, ok := ic.Parent().Node().(*ast.UnaryExpr); ok && un.Op == token.AND {
			return analysis.SuggestedFix{}, false
		}
		if as, ok := ic.Parent().Node().(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if l == id {
					return analysis.SuggestedFix{}, false
				}
			}
		}
		if inc, ok := ic.Parent().Node().(*ast.IncDecStmt); ok && inc.X == id {
			return analysis.SuggestedFix{}, false
		}
		edits = append(edits, analysis.TextEdit{Pos: id.End(), End: id.End(), NewText: []byte(".String()")})
	}
	return analysis.SuggestedFix{Message: "Use a strings.Builder", TextEdits: edits}, true
}
