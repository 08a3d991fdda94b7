package poolputnonptr

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports sync.Pool.Put of values that are not pointer-shaped.
var Analyzer = &analysis.Analyzer{
	Name:             "poolputnonptr",
	Doc:              doc,
	URL:              lintutil.RulesURL + "poolputnonptr",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

func run(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	for _, fc := range lintutil.Files(pass) {
		for c := range fc.Preorder((*ast.CallExpr)(nil)) {
			call := c.Node().(*ast.CallExpr)
			if len(call.Args) != 1 || !lintutil.IsMethod(info, call, "sync", "Pool", "Put") {
				continue
			}
			t := info.TypeOf(call.Args[0])
			if t == nil || pointerShaped(t) {
				continue
			}
			if _, isIface := t.Underlying().(*types.Interface); isIface {
				continue // dynamic type unknown
			}
			if b, ok := t.Underlying().(*types.Basic); ok && b.Kind() == types.UntypedNil {
				continue
			}
			pass.Report(analysis.Diagnostic{
				Pos:     call.Pos(),
				End:     call.End(),
				Message: fmt.Sprintf("sync.Pool.Put of a %s value allocates a copy on every call to store it in an interface; pool a pointer (*%s) instead", types.TypeString(t, types.RelativeTo(pass.Pkg)), types.TypeString(t, types.RelativeTo(pass.Pkg))),
			})
		}
	}
	return nil, nil
}

// pointerShaped reports whether values of t are stored directly in an
// interface, without allocation.
func pointerShaped(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Chan, *types.Signature:
		return true
	case *types.Basic:
		return u.Kind() == types.UnsafePointer
	case *types.Struct:
		return u.NumFields() == 1 && pointerShaped(u.Field(0).Type())
	case *types.Array:
		return u.Len() == 1 && pointerShaped(u.Elem())
	}
	return false
}
