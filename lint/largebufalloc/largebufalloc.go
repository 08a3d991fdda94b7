package largebufalloc

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports large constant-size buffers allocated per iteration or
// per request.
var Analyzer = &analysis.Analyzer{
	Name:             "largebufalloc",
	Doc:              doc,
	URL:              lintutil.RulesURL + "largebufalloc",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

const threshold = 64 << 10

func run(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	for _, fc := range lintutil.Files(pass) {
		for c := range fc.Preorder((*ast.CallExpr)(nil)) {
			call := c.Node().(*ast.CallExpr)
			if !lintutil.IsBuiltin(info, call, "make") || len(call.Args) < 2 {
				continue
			}
			t := info.TypeOf(call.Args[0])
			if t == nil {
				continue
			}
			slice, ok := t.Underlying().(*types.Slice)
			if !ok {
				continue
			}
			// The allocated size is the capacity when given, else the length.
			sizeArg := call.Args[len(call.Args)-1]
			tv, ok := info.Types[sizeArg]
			if !ok || tv.Value == nil {
				continue
			}
			n, exact := constant.Int64Val(constant.ToInt(tv.Value))
			if !exact {
				continue
			}
			elem := lintutil.Sizeof(pass.TypesSizes, slice.Elem())
			if elem < 0 {
				continue
			}
			bytes := n * elem
			if bytes < threshold {
				continue
			}
			place := lintutil.Where(info, c)
			// Code on the loop's way out runs once per loop, not per
			// iteration; the loop may itself be repeated.
			for place.Loop != nil && lintutil.LeavesLoop(info, c, place.Loop) {
				place.Loop = lintutil.OuterLoop(info, c, place.Loop)
			}
			if !place.Hot() {
				continue
			}
			where := "on every iteration of a loop"
			if place.Loop == nil {
				where = "on every HTTP request"
			}
			pass.Report(analysis.Diagnostic{
				Pos:     call.Pos(),
				End:     call.End(),
				Message: fmt.Sprintf("%d KiB buffer allocated %s; reuse it (allocate once before the loop, or keep pointers to buffers in a sync.Pool)", bytes>>10, where),
			})
		}
	}
	return nil, nil
}
