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
	// Find the appends first: most loops have none, and they are cheaper
	// to look for than the loop's count.
	var appends []*ast.AssignStmt
	for _, stmt := range lintutil.LoopBody(c.Node().(ast.Stmt)).List {
		if as := selfAppend(info, stmt); as != nil {
			appends = append(appends, as)
		}
	}
	if len(appends) == 0 {
		return
	}
	loop, ok := lintutil.CountedLoopAt(pass, c)
	if !ok {
		return
	}
	for _, as := range appends {
		call := as.Rhs[0].(*ast.CallExpr)
		v := lintutil.LocalVar(info, as.Lhs[0])
		// The append must be the only use of the slice in the loop.
		if lintutil.CountUses(info, loop.Body, v) != 2 {
			continue
		}
		if _, isSlice := v.Type().Underlying().(*types.Slice); !isSlice {
			continue
		}
		decl, fixable, ok := loop.DeclBefore(info, v)
		if !ok {
			continue
		}
		typ := emptySliceType(info, decl)
		if typ == nil {
			continue
		}
		capText := loop.Count.Text
		d := analysis.Diagnostic{
			Pos:     call.Pos(),
			End:     call.End(),
			Message: fmt.Sprintf("%s grows by one append per iteration of a loop that runs %s times; preallocate it with make(%s, 0, %s)", v.Name(), capText, lintutil.Text(pass.Fset, typ), capText),
		}
		if fixable {
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

// selfAppend returns stmt if it is "s = append(s, x)" for a local
// variable s.
func selfAppend(info *types.Info, stmt ast.Stmt) *ast.AssignStmt {
	as, ok := stmt.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return nil
	}
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if !ok || !lintutil.IsBuiltin(info, call, "append") || len(call.Args) != 2 || call.Ellipsis.IsValid() {
		return nil
	}
	v := lintutil.LocalVar(info, as.Lhs[0])
	if v == nil || lintutil.LocalVar(info, call.Args[0]) != v {
		return nil
	}
	return as
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
