package largebufalloc

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports large constant-size buffers allocated per iteration or
// per request, made there or by a function that returns a fresh one.
var Analyzer = &analysis.Analyzer{
	Name:             "largebufalloc",
	Doc:              doc,
	URL:              lintutil.RulesURL + "largebufalloc",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
	FactTypes:        []analysis.Fact{new(FreshBuffer)},
}

const threshold = 64 << 10

// FreshBuffer is the fact that a function returns a newly made buffer of
// a constant size on every call, such as
//
//	func newBuf() []byte { return make([]byte, 10<<20) }
//
// A call of it allocates the buffer as surely as the make it hides, so a
// call per request or per iteration is flagged like the make would be,
// in this package or in any package that imports it.
type FreshBuffer struct {
	Bytes int64 // size of the buffer, bytes
}

// AFact marks FreshBuffer as an analysis fact.
func (*FreshBuffer) AFact() {}

func (f *FreshBuffer) String() string { return fmt.Sprintf("fresh %d-byte buffer", f.Bytes) }

func run(pass *analysis.Pass) (any, error) {
	exportFacts(pass)
	info := pass.TypesInfo
	for _, fc := range lintutil.Files(pass) {
		for c := range fc.Preorder((*ast.CallExpr)(nil)) {
			call := c.Node().(*ast.CallExpr)
			bytes, by := allocated(pass, call)
			if bytes < threshold {
				continue
			}
			where, ok := hot(info, c)
			if !ok {
				continue
			}
			what := fmt.Sprintf("%d KiB buffer allocated %s", bytes>>10, where)
			if by != nil {
				what = fmt.Sprintf("%d KiB buffer allocated %s by %s, which makes a new one each call", bytes>>10, where, by.Name())
			}
			pass.Report(analysis.Diagnostic{
				Pos:     call.Pos(),
				End:     call.End(),
				Message: what + "; reuse it (allocate once before the loop, or keep pointers to buffers in a sync.Pool)",
			})
		}
	}
	return nil, nil
}

// allocated returns the bytes a call allocates as a fresh buffer: a make
// of a slice with a constant size, or a call of a function with the
// FreshBuffer fact (by is then that function). 0 when it is neither.
func allocated(pass *analysis.Pass, call *ast.CallExpr) (bytes int64, by *types.Func) {
	if n := makeSize(pass, call); n > 0 {
		return n, nil
	}
	fn, ok := typeutil.Callee(pass.TypesInfo, call).(*types.Func)
	if !ok {
		return 0, nil
	}
	var fact FreshBuffer
	if !pass.ImportObjectFact(fn, &fact) {
		return 0, nil
	}
	return fact.Bytes, fn
}

// makeSize returns the bytes of make([]T, n) or make([]T, len, n) with a
// constant n (the capacity when given, else the length); 0 otherwise.
func makeSize(pass *analysis.Pass, call *ast.CallExpr) int64 {
	info := pass.TypesInfo
	if !lintutil.IsBuiltin(info, call, "make") || len(call.Args) < 2 {
		return 0
	}
	t := info.TypeOf(call.Args[0])
	if t == nil {
		return 0
	}
	slice, ok := t.Underlying().(*types.Slice)
	if !ok {
		return 0
	}
	tv, ok := info.Types[call.Args[len(call.Args)-1]]
	if !ok || tv.Value == nil {
		return 0
	}
	n, exact := constant.Int64Val(constant.ToInt(tv.Value))
	elem := lintutil.Sizeof(pass.TypesSizes, slice.Elem())
	if !exact || n <= 0 || elem <= 0 || n > (1<<62)/elem {
		return 0
	}
	return n * elem
}

// hot says where the call at c runs again and again: on every iteration
// of a loop, or on every HTTP request.
func hot(info *types.Info, c inspector.Cursor) (string, bool) {
	place := lintutil.Where(info, c)
	// Code on the loop's way out runs once per loop, not per iteration;
	// the loop may itself be repeated.
	for place.Loop != nil && lintutil.LeavesLoop(info, c, place.Loop) {
		place.Loop = lintutil.OuterLoop(info, c, place.Loop)
	}
	switch {
	case place.Loop != nil:
		return "on every iteration of a loop", true
	case place.Handler:
		return "on every HTTP request", true
	}
	return "", false
}

// exportFacts gives the FreshBuffer fact to the package's functions that
// return a fresh buffer of at least the threshold on every path: each
// return statement returns a make of a constant size, a call of a function
// that has the fact, or a local variable assigned once, from either. Rounds
// repeat until no function gains the fact, so that helpers of helpers
// count; each round adds one at least, so there are at most as many rounds
// as functions.
func exportFacts(pass *analysis.Pass) {
	var decls []*ast.FuncDecl
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Type.Results == nil || fd.Type.Results.NumFields() != 1 {
				continue
			}
			if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok && fn.Signature().TypeParams() == nil {
				if _, isSlice := fn.Signature().Results().At(0).Type().Underlying().(*types.Slice); isSlice {
					decls = append(decls, fd)
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, fd := range decls {
			fn := pass.TypesInfo.Defs[fd.Name].(*types.Func)
			if pass.ImportObjectFact(fn, new(FreshBuffer)) {
				continue
			}
			if n := returnsFresh(pass, fd); n >= threshold {
				pass.ExportObjectFact(fn, &FreshBuffer{Bytes: n})
				changed = true
			}
		}
	}
}

// returnsFresh returns the size of the fresh buffer every return statement
// of fd returns (the smallest, when they differ), or 0.
func returnsFresh(pass *analysis.Pass, fd *ast.FuncDecl) int64 {
	var size int64
	fresh := true
	returns := 0
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if !fresh {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			returns++
			if len(n.Results) != 1 {
				fresh = false
				return false
			}
			b := freshExpr(pass, fd.Body, n.Results[0])
			if b == 0 {
				fresh = false
				return false
			}
			if size == 0 || b < size {
				size = b
			}
		}
		return true
	})
	if !fresh || returns == 0 {
		return 0
	}
	return size
}

// freshExpr returns the bytes of the fresh buffer e is: a make or a call
// that allocates one, or a local variable of body assigned only once, from
// such a call, where it is declared.
func freshExpr(pass *analysis.Pass, body *ast.BlockStmt, e ast.Expr) int64 {
	e = ast.Unparen(e)
	if call, ok := e.(*ast.CallExpr); ok {
		n, _ := allocated(pass, call)
		return n
	}
	v := lintutil.LocalVar(pass.TypesInfo, e)
	if v == nil {
		return 0
	}
	var init ast.Expr
	assigned := 0
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				id, ok := ast.Unparen(lhs).(*ast.Ident)
				if !ok || (pass.TypesInfo.Defs[id] != v && pass.TypesInfo.Uses[id] != v) {
					continue
				}
				assigned++
				if len(n.Lhs) == len(n.Rhs) {
					init = n.Rhs[i]
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if pass.TypesInfo.Defs[id] == v {
					assigned++
					if len(n.Values) == len(n.Names) {
						init = n.Values[i]
					}
				}
			}
		case *ast.UnaryExpr:
			// &v lets anything change it.
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && pass.TypesInfo.Uses[id] == v {
				assigned += 2
			}
		}
		return true
	})
	if assigned != 1 || init == nil {
		return 0
	}
	call, ok := ast.Unparen(init).(*ast.CallExpr)
	if !ok {
		return 0
	}
	n, _ := allocated(pass, call)
	return n
}
