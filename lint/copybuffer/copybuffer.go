package copybuffer

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports io.Copy calls that allocate a 32 KiB buffer each time,
// per iteration or per request.
var Analyzer = &analysis.Analyzer{
	Name:             "copybuffer",
	Doc:              doc,
	URL:              lintutil.RulesURL + "copybuffer",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

func run(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	for _, fc := range lintutil.Files(pass) {
		for c := range fc.Preorder((*ast.CallExpr)(nil)) {
			call := c.Node().(*ast.CallExpr)
			if !lintutil.IsFunc(info, call, "io", "Copy", "CopyN") || len(call.Args) < 2 {
				continue
			}
			dst, src := info.TypeOf(call.Args[0]), info.TypeOf(call.Args[1])
			if !concrete(dst) || !concrete(src) {
				continue // the dynamic types may implement WriterTo/ReaderFrom
			}
			if hasMethod(src, "WriteTo") || hasMethod(dst, "ReadFrom") {
				continue // io.Copy uses them and allocates no buffer
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
			q := types.RelativeTo(pass.Pkg)
			// CopyN reads through an io.LimitedReader, and io.Copy sizes
			// its buffer down to the limit when that is smaller.
			size := "a 32 KiB buffer"
			if lintutil.IsFunc(info, call, "io", "CopyN") {
				size = "a buffer of up to 32 KiB"
			}
			pass.Report(analysis.Diagnostic{
				Pos: call.Pos(),
				End: call.End(),
				Message: fmt.Sprintf("%s allocates %s %s (%s has no WriteTo, %s has no ReadFrom); use io.CopyBuffer with a pooled buffer",
					lintutil.Text(pass.Fset, call.Fun), size, where, types.TypeString(src, q), types.TypeString(dst, q)),
			})
		}
	}
	return nil, nil
}

// concrete reports whether t is a known, non-interface type.
func concrete(t types.Type) bool {
	if t == nil {
		return false
	}
	_, isIface := t.Underlying().(*types.Interface)
	return !isIface
}

// hasMethod reports whether t or *t has the io.WriterTo or io.ReaderFrom
// method name: one parameter, results (int64, error).
func hasMethod(t types.Type, name string) bool {
	for _, typ := range []types.Type{t, types.NewPointer(t)} {
		if _, isPtr := t.(*types.Pointer); isPtr && typ != t {
			break
		}
		obj, _, _ := types.LookupFieldOrMethod(typ, true, nil, name)
		fn, ok := obj.(*types.Func)
		if !ok {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() == 1 && sig.Results().Len() == 2 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.Int64]) {
			return true
		}
	}
	return false
}
