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
	// Find the stores first: most loops have none, and they are cheaper to
	// look for than the loop's count.
	var stores []*ast.AssignStmt
	for _, stmt := range lintutil.LoopBody(c.Node().(ast.Stmt)).List {
		if as := mapStore(info, stmt); as != nil {
			stores = append(stores, as)
		}
	}
	if len(stores) == 0 {
		return
	}
	loop, ok := lintutil.CountedLoopAt(pass, c)
	if !ok {
		return
	}
	for _, as := range stores {
		v := lintutil.LocalVar(info, as.Lhs[0].(*ast.IndexExpr).X)
		// The store must be the only use of the map in the loop.
		if lintutil.CountUses(info, loop.Body, v) != 1 {
			continue
		}
		decl, fixable, ok := loop.DeclBefore(info, v)
		if !ok {
			continue
		}
		typ := emptyMapType(info, decl)
		if typ == nil {
			continue
		}
		count := loop.Count.Text
		typText := lintutil.Text(pass.Fset, typ)
		d := analysis.Diagnostic{
			Pos:     as.Pos(),
			End:     as.End(),
			Message: fmt.Sprintf("map %s gets one entry per iteration of a loop that runs %s times; create it with make(%s, %s)", v.Name(), count, typText, count),
		}
		if fixable {
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message: "Give the map a size hint",
				TextEdits: []analysis.TextEdit{{
					Pos:     decl.Pos(),
					End:     decl.End(),
					NewText: fmt.Appendf(nil, "%s := make(%s, %s)", v.Name(), typText, count),
				}},
			}}
		}
		pass.Report(d)
	}
}

// mapStore returns stmt if it is "m[k] = x" for a local map variable m.
func mapStore(info *types.Info, stmt ast.Stmt) *ast.AssignStmt {
	as, ok := stmt.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return nil
	}
	ix, ok := as.Lhs[0].(*ast.IndexExpr)
	if !ok {
		return nil
	}
	v := lintutil.LocalVar(info, ix.X)
	if v == nil {
		return nil
	}
	if _, isMap := v.Type().Underlying().(*types.Map); !isMap {
		return nil
	}
	return as
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
