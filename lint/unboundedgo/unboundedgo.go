package unboundedgo

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports goroutines started once per item received from a
// channel with nothing bounding how many run at once.
var Analyzer = &analysis.Analyzer{
	Name:             "unboundedgo",
	Doc:              doc,
	URL:              lintutil.RulesURL + "unboundedgo",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

func run(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	for _, fc := range lintutil.Files(pass) {
		for c := range fc.Preorder((*ast.GoStmt)(nil)) {
			gs := c.Node().(*ast.GoStmt)
			place := lintutil.Where(info, c)
			if place.Loop == nil || !channelDriven(info, place.Loop, gs) || !usesReceived(info, place.Loop, gs) {
				continue
			}
			if bounded(info, c, place.Loop, gs) {
				continue
			}
			pass.Report(analysis.Diagnostic{
				Pos:     gs.Pos(),
				End:     gs.End(),
				Message: "goroutine started for every value received from a channel with no bound on how many run at once; use a fixed pool of workers, errgroup.Group.SetLimit or a semaphore",
			})
		}
	}
	return nil, nil
}

// channelDriven reports whether the loop runs once per value received from
// a channel: a range over a channel, or a loop without init and post
// statements whose body receives from a channel before the go statement.
func channelDriven(info *types.Info, loop ast.Stmt, gs *ast.GoStmt) bool {
	switch loop := loop.(type) {
	case *ast.RangeStmt:
		t := info.TypeOf(loop.X)
		if t == nil {
			return false
		}
		_, isChan := t.Underlying().(*types.Chan)
		return isChan
	case *ast.ForStmt:
		if loop.Init != nil || loop.Post != nil {
			return false
		}
		found := false
		ast.Inspect(loop.Body, func(n ast.Node) bool {
			if found || n == nil || n.Pos() >= gs.Pos() {
				return false
			}
			if _, isLit := n.(*ast.FuncLit); isLit {
				return false
			}
			if un, ok := n.(*ast.UnaryExpr); ok && un.Op == token.ARROW {
				found = true
			}
			return true
		})
		return found
	}
	return false
}

// bounded reports whether something before the go statement in the loop
// body limits concurrency: a channel send (semaphore), or a call of a
// method named Acquire, TryAcquire or Wait (semaphore.Weighted, a
// WaitGroup waited per batch).
func bounded(info *types.Info, c inspector.Cursor, loop ast.Stmt, gs *ast.GoStmt) bool {
	found := false
	ast.Inspect(lintutil.LoopBody(loop), func(n ast.Node) bool {
		if found || n == nil || n.Pos() >= gs.Pos() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SendStmt:
			found = true
		case *ast.CallExpr:
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "Acquire", "TryAcquire", "Wait":
					found = true
				}
			}
		}
		return !found
	})
	if found {
		return true
	}
	// A semaphore acquired by the goroutine before any work still lets
	// goroutines pile up, but bounds the work; accept it as intended.
	if lit, ok := gs.Call.Fun.(*ast.FuncLit); ok && len(lit.Body.List) > 0 {
		switch first := lit.Body.List[0].(type) {
		case *ast.SendStmt:
			return true
		case *ast.ExprStmt:
			if call, ok := first.X.(*ast.CallExpr); ok {
				if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && (sel.Sel.Name == "Acquire") {
					return true
				}
			}
		}
	}
	return false
}

// usesReceived reports whether the go statement uses a value received
// from a channel in the loop: the range variable of a range over a channel,
// or a variable assigned from a receive (x := <-ch, case x := <-ch:).
// Goroutines that do not take the received value (started on a timer
// tick, or under a budget the loop keeps) are not one per item.
func usesReceived(info *types.Info, loop ast.Stmt, gs *ast.GoStmt) bool {
	var vars []types.Object
	if r, ok := loop.(*ast.RangeStmt); ok {
		if id, ok := r.Key.(*ast.Ident); ok {
			if obj := info.ObjectOf(id); obj != nil {
				vars = append(vars, obj)
			}
		}
	} else {
		ast.Inspect(lintutil.LoopBody(loop), func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 {
				return true
			}
			if un, ok := ast.Unparen(as.Rhs[0]).(*ast.UnaryExpr); ok && un.Op == token.ARROW {
				if id, ok := as.Lhs[0].(*ast.Ident); ok {
					if obj := info.ObjectOf(id); obj != nil {
						vars = append(vars, obj)
					}
				}
			}
			return true
		})
	}
	for _, v := range vars {
		if lintutil.Mentions(info, gs.Call, v) {
			return true
		}
	}
	return false
}
