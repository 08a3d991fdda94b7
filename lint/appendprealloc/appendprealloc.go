package appendprealloc

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

// Analyzer reports slices grown by append in a loop whose final length is
// known before the loop starts.
var Analyzer = &analysis.Analyzer{
	Name:             "appendprealloc",
	Doc:              doc,
	URL:              lintutil.RulesURL + "appendprealloc",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

func run(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	for _, fc := range lintutil.Files(pass) {
		for c := range fc.Preorder((*ast.ForStmt)(nil), (*ast.RangeStmt)(nil)) {
			check(pass, info, c)
		}
	}
	return nil, nil
}

func check(pass *analysis.Pass, info *types.Info, c inspector.Cursor) {
	loop := c.Node().(ast.Stmt)
	count, ok := lintutil.LoopCount(pass, loop)
	if !ok {
		return
	}
	body := lintutil.LoopBody(loop)
	if !lintutil.RunsEveryIteration(info, body) {
		return
	}
	list, index, ok := lintutil.StmtList(c)
	if !ok {
		return
	}
	for _, stmt := range body.List {
		as, ok := stmt.(*ast.AssignStmt)
		if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			continue
		}
		call, ok := as.Rhs[0].(*ast.CallExpr)
		if !ok || !lintutil.IsBuiltin(info, call, "append") || len(call.Args) != 2 || call.Ellipsis.IsValid() {
			continue
		}
		v := lintutil.LocalVar(info, as.Lhs[0])
		if v == nil || lintutil.LocalVar(info, call.Args[0]) != v {
			continue
		}
		// The append must be the only use of the slice in the loop.
		if lintutil.CountUses(info, body, v) != 2 {
			continue
		}
		if _, isSlice := v.Type().Underlying().(*types.Slice); !isSlice {
			continue
		}
		decl, between, ok := lintutil.PrecedingDecl(info, list, index, v)
		if !ok {
			continue
		}
		typ := emptySliceType(info, decl)
		if typ == nil {
			continue
		}
		capText := count.Text
		d := analysis.Diagnostic{
			Pos:     call.Pos(),
			End:     call.End(),
			Message: fmt.Sprintf("%s grows by one append per iteration of a loop that runs %s times; preallocate it with make(%s, 0, %s)", v.Name(), capText, lintutil.Text(pass.Fset, typ), capText),
		}
		if lintutil.DeclaredBefore(info, count.Expr, decl.Pos()) && !modifiesAny(info, between, count.Vars) {
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message: "Preallocate the slice",
				TextEdits: []analysis.TextEdit{{
					Pos:     decl.Pos(),
					End:     decl.End(),
					NewText: fmt.Appendf(nil, "%s := make(%s, 0, %s)", v.Name(), lintutil.Text(pass.Fset, typ), capText),
				}},
			}}
		}
		pass.Report(d)
	}
}

func modifiesAny(info *types.Info, stmts []ast.Stmt, vars []*types.Var) bool {
	for _, s := range stmts {
		if lintutil.Modifies(info, s, vars) {
			return true
		}
	}
	return false
}

// emptySliceType returns the slice type expression of a declaration of an
// empty slice without capacity: var s []T, s := []T{}, s := make([]T, 0).
func emptySliceType(info *types.Info, decl ast.Stmt) ast.Expr {
	typ, value := lintutil.DeclValue(decl)
	switch value := value.(type) {
	case nil:
		return typ
	case *ast.CompositeLit:
		if len(value.Elts) == 0 && value.Type != nil && typ == nil {
			return value.Type
		}
	case *ast.CallExpr:
		if typ == nil && lintutil.IsBuiltin(info, value, "make") && len(value.Args) == 2 {
			if tv, ok := info.Types[value.Args[1]]; ok && tv.Value != nil && tv.Value.String() == "0" {
				return value.Args[0]
			}
		}
	}
	return nil
}
