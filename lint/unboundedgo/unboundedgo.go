package unboundedgo

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports goroutines started once per item received from a
// channel, or in rounds of a counted loop inside another loop, with nothing
// bounding how many run at once.
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
			if place.Loop == nil || bounded(info, c, place.Loop, gs) {
				continue
			}
			switch {
			case channelDriven(info, place.Loop, gs) && usesReceived(info, place.Loop, gs):
				pass.Report(analysis.Diagnostic{
					Pos:     gs.Pos(),
					End:     gs.End(),
					Message: "goroutine started for every value received from a channel with no bound on how many run at once; use a fixed pool of workers, errgroup.Group.SetLimit or a semaphore",
				})
			case inRounds(pass, c, place.Loop, gs):
				pass.Report(analysis.Diagnostic{
					Pos:     gs.Pos(),
					End:     gs.End(),
					Message: "goroutine started per item in rounds (a counted loop inside a loop) with nothing waiting between rounds, so they pile up round after round; wait for each round (a sync.WaitGroup per round), or use a fixed pool of workers or errgroup.Group.SetLimit",
				})
			}
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

// inRounds reports whether the go statement starts a goroutine per item in
// rounds: its loop is counted (for i := 0; i < n; i++, for range n) and
// itself inside another loop of the same function, nothing in that outer
// loop waits between rounds (a Wait or Acquire call, a channel send or
// receive), and the goroutine does one item and ends rather than looping
// for work as a pool's worker does. A counted loop alone starts a pool, or
// a fan-out of a known size; in rounds, with nothing to wait for them, the
// goroutines of every round are alive at once.
func inRounds(pass *analysis.Pass, c inspector.Cursor, loop ast.Stmt, gs *ast.GoStmt) bool {
	if !counted(pass.TypesInfo, loop) {
		return false
	}
	outer := lintutil.OuterLoop(pass.TypesInfo, c, loop)
	if outer == nil || waits(pass.TypesInfo, lintutil.LoopBody(outer)) {
		return false
	}
	body := goBody(pass, gs)
	return body != nil && !loopsForWork(pass.TypesInfo, body)
}

// counted reports whether loop runs a number of times fixed by a count: a
// three-clause for loop or a range over an integer.
func counted(info *types.Info, loop ast.Stmt) bool {
	switch loop := loop.(type) {
	case *ast.ForStmt:
		return loop.Init != nil && loop.Cond != nil && loop.Post != nil
	case *ast.RangeStmt:
		if loop.X == nil {
			return false
		}
		t := info.TypeOf(loop.X)
		if t == nil {
			return false
		}
		b, ok := t.Underlying().(*types.Basic)
		return ok && b.Info()&types.IsInteger != 0
	}
	return false
}

// waits reports whether a loop body, outside function literals, calls a
// method named Wait, Acquire or TryAcquire, or sends to or receives from a
// channel (a select, a range over one): any of them can hold a round until the previous one is done.
func waits(info *types.Info, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SendStmt, *ast.SelectStmt:
			found = true
		case *ast.UnaryExpr:
			found = n.Op == token.ARROW
		case *ast.RangeStmt:
			if t := info.TypeOf(n.X); t != nil {
				if _, isChan := t.Underlying().(*types.Chan); isChan {
					found = true
				}
			}
		case *ast.CallExpr:
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "Wait", "Acquire", "TryAcquire":
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// goBody returns the body of the function the go statement runs: a
// function literal, or a function or method declared in the package being
// checked; nil when it is declared elsewhere, and cannot be judged.
func goBody(pass *analysis.Pass, gs *ast.GoStmt) *ast.BlockStmt {
	if lit, ok := ast.Unparen(gs.Call.Fun).(*ast.FuncLit); ok {
		return lit.Body
	}
	fn, ok := typeutil.Callee(pass.TypesInfo, gs.Call).(*types.Func)
	if !ok || fn.Pkg() != pass.Pkg {
		return nil
	}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && pass.TypesInfo.Defs[fd.Name] == fn {
				return fd.Body
			}
		}
	}
	return nil
}

// loopsForWork reports whether a goroutine's body loops taking work from a
// channel, as a pool's worker does: a range over a channel, or a loop
// that receives from one (in a select or not).
func loopsForWork(info *types.Info, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.RangeStmt:
			if t := info.TypeOf(n.X); t != nil {
				if _, isChan := t.Underlying().(*types.Chan); isChan {
					found = true
				}
			}
		case *ast.ForStmt:
			ast.Inspect(n.Body, func(m ast.Node) bool {
				if _, isLit := m.(*ast.FuncLit); isLit || found {
					return false
				}
				if un, ok := m.(*ast.UnaryExpr); ok && un.Op == token.ARROW {
					found = true
				}
				return !found
			})
		}
		return !found
	})
	return found
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
