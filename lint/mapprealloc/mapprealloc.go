package mapprealloc

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

// Analyzer reports maps filled in a loop of known length that were created
// without a size hint.
var Analyzer = &analysis.Analyzer{
	Name:             "mapprealloc",
	Doc:              doc,
	URL:              lintutil.RulesURL + "mapprealloc",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

func run(pass *analysis.Pass) (any, error) {
	for _, fc := range lintutil.Files(pass) {
		for c := range fc.Preorder((*ast.ForStmt)(nil), (*ast.RangeStmt)(nil)) {
			check(pass, pass.TypesInfo, c)
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
		ix, ok := as.Lhs[0].(*ast.IndexExpr)
		if !ok {
			continue
		}
		v := lintutil.LocalVar(info, ix.X)
		if v == nil {
			continue
		}
		if _, isMap := v.Type().Underlying().(*types.Map); !isMap {
			continue
		}
		// The store must be the only use of the map in the loop.
		if lintutil.CountUses(info, body, v) != 1 {
			continue
		}
		decl, between, ok := lintutil.PrecedingDecl(info, list, index, v)
		if !ok {
			continue
		}
		typ := emptyMapType(info, decl)
		if typ == nil {
			continue
		}
		typText := lintutil.Text(pass.Fset, typ)
		d := analysis.Diagnostic{
			Pos:     as.Pos(),
			End:     as.End(),
			Message: fmt.Sprintf("map %s gets one entry per iteration of a loop that runs %s times; create it with make(%s, %s)", v.Name(), count.Text, typText, count.Text),
		}
		if lintutil.DeclaredBefore(info, count.Expr, decl.Pos()) && !modifiesAny(info, between, count.Vars) {
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message: "Give the map a size hint",
				TextEdits: []analysis.TextEdit{{
					Pos:     decl.Pos(),
					End:     decl.End(),
					NewText: fmt.Appendf(nil, "%s := make(%s, %s)", v.Name(), typText, count.Text),
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

// emptyMapType returns the map type of m := map[K]V{} or m := make(map[K]V).
func emptyMapType(info *types.Info, decl ast.Stmt) ast.Expr {
	typ, value := lintutil.DeclValue(decl)
	if typ != nil {
		return nil
	}
	switch value := value.(type) {
	case *ast.CompositeLit:
		if len(value.Elts) == 0 && value.Type != nil {
			return value.Type
		}
	case *ast.CallExpr:
		if lintutil.IsBuiltin(info, value, "make") && len(value.Args) == 1 {
			return value.Args[0]
		}
	}
	return nil
}
