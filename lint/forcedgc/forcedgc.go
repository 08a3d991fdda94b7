package forcedgc

import (
	"fmt"
	"go/ast"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports runtime.GC and debug.FreeOSMemory called in a loop or
// while serving an HTTP request.
var Analyzer = &analysis.Analyzer{
	Name:             "forcedgc",
	Doc:              doc,
	URL:              lintutil.RulesURL + "forcedgc",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

func run(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	if pass.Pkg.Path() == "runtime" {
		return nil, nil // the runtime's own use of GC is its business
	}
	for _, fc := range lintutil.Files(pass) {
		for c := range fc.Preorder((*ast.CallExpr)(nil)) {
			call := c.Node().(*ast.CallExpr)
			if !lintutil.IsFunc(info, call, "runtime", "GC") && !lintutil.IsFunc(info, call, "runtime/debug", "FreeOSMemory") {
				continue
			}
			place := lintutil.Where(info, c)
			if !place.Hot() {
				continue
			}
			where := "in a loop"
			if place.Loop == nil {
				where = "in an HTTP handler"
			}
			pass.Report(analysis.Diagnostic{
				Pos:     call.Pos(),
				End:     call.End(),
				Message: fmt.Sprintf("%s %s forces a full, blocking garbage collection each time; let the pacer decide (tune GOGC or GOMEMLIMIT instead)", lintutil.Text(pass.Fset, call.Fun), where),
			})
		}
	}
	return nil, nil
}
