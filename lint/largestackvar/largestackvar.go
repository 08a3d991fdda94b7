package largestackvar

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports local variables too large for the stack.
var Analyzer = &analysis.Analyzer{
	Name:             "largestackvar",
	Doc:              doc,
	URL:              lintutil.RulesURL + "largestackvar",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

// maxStackVarSize is the compiler's limit for explicitly declared local
// variables (cmd/compile/internal/ir.MaxStackVarSize); larger ones are
// heap-allocated.
const maxStackVarSize = 128 << 10

func run(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	for _, fc := range lintutil.Files(pass) {
		for c := range fc.Preorder((*ast.Ident)(nil)) {
			id := c.Node().(*ast.Ident)
			v, ok := info.Defs[id].(*types.Var)
			if !ok || v.IsField() || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() || v.Parent() == nil {
				continue
			}
			switch v.Type().Underlying().(type) {
			case *types.Array, *types.Struct:
			default:
				continue
			}
			size := lintutil.Sizeof(pass.TypesSizes, v.Type())
			if size <= maxStackVarSize {
				continue
			}
			place := lintutil.Where(info, c)
			if fd, ok := place.Func.(*ast.FuncDecl); ok && fd.Recv == nil && (fd.Name.Name == "init" || (fd.Name.Name == "main" && pass.Pkg.Name() == "main")) {
				continue // runs once
			}
			if place.Func == nil || addressTaken(info, place.Func, v) {
				continue // an escaping variable is heap-allocated whatever its size
			}
			pass.Report(analysis.Diagnostic{
				Pos:     id.Pos(),
				End:     id.End(),
				Message: fmt.Sprintf("local variable %s (%s, %d KiB) is too large for the stack and is heap-allocated and zeroed on every call; reuse a buffer (sync.Pool) or keep it in a long-lived struct", v.Name(), types.TypeString(v.Type(), types.RelativeTo(pass.Pkg)), size>>10),
			})
		}
	}
	return nil, nil
}

// addressTaken reports whether &v (or &v.field...) occurs in fn.
func addressTaken(info *types.Info, fn ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if un, ok := n.(*ast.UnaryExpr); ok && un.Op == token.AND {
			e := ast.Unparen(un.X)
			for {
				if sel, ok := e.(*ast.SelectorExpr); ok {
					e = sel.X
					continue
				}
				if ix, ok := e.(*ast.IndexExpr); ok {
					if _, isArray := info.TypeOf(ix.X).Underlying().(*types.Array); isArray {
						e = ix.X
						continue
					}
				}
				break
			}
			if id, ok := e.(*ast.Ident); ok && info.Uses[id] == v {
				found = true
			}
		}
		return !found
	})
	return found
}
