package timeafterloop

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/edge"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/gcdoctor/gcdoctor/lint/internal/lintutil"
)

// Analyzer reports time.After and time.Tick called on every iteration of a
// loop.
var Analyzer = &analysis.Analyzer{
	Name:             "timeafterloop",
	Doc:              doc,
	URL:              lintutil.RulesURL + "timeafterloop",
	Requires:         []*analysis.Analyzer{inspect.Analyzer},
	Run:              lintutil.Safe(run),
	RunDespiteErrors: true,
}

// Severities, carried in Diagnostic.Category.
const (
	warning = "warning"
	info    = "info"
)

func run(pass *analysis.Pass) (any, error) {
	taken := map[string]bool{}
	for _, fc := range lintutil.Files(pass) {
		file := fc.Node().(*ast.File)
		collected := lintutil.AtLeast(lintutil.FileVersion(pass, file), "go1.23")
		for c := range fc.Preorder((*ast.CallExpr)(nil)) {
			call := c.Node().(*ast.CallExpr)
			if !lintutil.IsFunc(pass.TypesInfo, call, "time", "After", "Tick") {
				continue
			}
			place := lintutil.Where(pass.TypesInfo, c)
			if place.Loop == nil {
				continue
			}
			name := lintutil.Text(pass.Fset, call.Fun)
			if lintutil.IsFunc(pass.TypesInfo, call, "time", "Tick") {
				d := analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Category: warning}
				if collected {
					d.Message = fmt.Sprintf("%s in a loop creates a new Ticker on every iteration; create one time.Ticker before the loop", name)
				} else {
					d.Message = fmt.Sprintf("%s in a loop creates a new Ticker on every iteration that is never stopped nor collected (before Go 1.23); create one time.Ticker before the loop and Stop it", name)
				}
				pass.Report(d)
				continue
			}
			selCursor, clause := selectCase(c)
			var sel *ast.SelectStmt
			if clause != nil {
				sel = selCursor.Node().(*ast.SelectStmt)
			}
			if sel == nil && !assignedInLoop(c, place.Loop) {
				continue // a plain <-time.After(d) is a sleep: its timer fires
			}
			if sel == nil && rearmed(pass.TypesInfo, c, place.Loop) {
				continue
			}
			if sel == nil && lintutil.LeavesLoop(pass.TypesInfo, c, place.Loop) {
				// Stored in a branch that then leaves the loop: at most
				// once per loop (rclone oracleobjectstorage/waiter.go:234,
				// v1.76.0: a grace period started when the wait times out).
				continue
			}
			if sel != nil && !abandonsTimer(pass.TypesInfo, selCursor, clause, place.Loop, place.Func) {
				continue
			}
			d := analysis.Diagnostic{Pos: call.Pos(), End: call.End()}
			if collected {
				d.Category = info
				d.Message = fmt.Sprintf("%s in a loop allocates a new Timer and channel on every iteration; reuse one time.Timer with Reset", name)
			} else {
				d.Category = warning
				d.Message = fmt.Sprintf("%s in a loop allocates a new Timer on every iteration, and before Go 1.23 each one stays in memory until it fires; reuse one time.Timer with Reset", name)
			}
			if sel != nil && collected {
				if fix, ok := hoist(pass, c, call, selCursor, place.Loop, taken); ok {
					d.SuggestedFixes = []analysis.SuggestedFix{fix}
				}
			}
			pass.Report(d)
		}
	}
	return nil, nil
}

// selectCase returns the select statement and clause when call is the
// whole receive of a clause: case <-time.After(d):
func selectCase(c inspector.Cursor) (inspector.Cursor, *ast.CommClause) {
	un, ok := c.Parent().Node().(*ast.UnaryExpr)
	if !ok || un.Op != token.ARROW {
		return inspector.Cursor{}, nil
	}
	p := c.Parent().Parent()
	switch n := p.Node().(type) {
	case *ast.ExprStmt:
	case *ast.AssignStmt:
		if len(n.Rhs) != 1 {
			return inspector.Cursor{}, nil
		}
	default:
		return inspector.Cursor{}, nil
	}
	clause, ok := p.Parent().Node().(*ast.CommClause)
	if !ok || clause.Comm != p.Node() {
		return inspector.Cursor{}, nil
	}
	sel := p.Parent().Parent().Parent()
	if _, ok := sel.Node().(*ast.SelectStmt); !ok {
		return inspector.Cursor{}, nil
	}
	return sel, clause
}

// assignedInLoop reports whether the call's channel is stored in a variable
// (ch := time.After(d)), to be used later in the same iteration.
func assignedInLoop(c inspector.Cursor, loop ast.Stmt) bool {
	as, ok := c.Parent().Node().(*ast.AssignStmt)
	return ok && len(as.Rhs) == 1 && as.Rhs[0] == c.Node()
}

// rearmed reports whether the call (stored by "ch = time.After(d)") only
// replaces a timer that has fired or was never set: ch is declared outside
// the loop and the assignment is in a select clause that received from ch,
// or under "if ch == nil" (or another value meaning "not armed"). The timer
// then lives across iterations and one is allocated per expiry, not per
// iteration (nats-server raft.go:4361, v2.15.2: a vote request resent with
// back-off; gitea modules/queue/workergroup.go:360, v1.27.3: a debounce
// timer armed when it is the sentinel infiniteTimerC).
func rearmed(info *types.Info, c inspector.Cursor, loop ast.Stmt) bool {
	as := c.Parent().Node().(*ast.AssignStmt)
	if as.Tok != token.ASSIGN || len(as.Lhs) != 1 {
		return false
	}
	v := lintutil.LocalVar(info, as.Lhs[0])
	if v == nil || (v.Pos() >= loop.Pos() && v.Pos() < loop.End()) {
		return false
	}
	isV := func(e ast.Expr) bool { return lintutil.LocalVar(info, e) == v }
	for cur := c.Parent(); cur.Node() != loop; cur = cur.Parent() {
		switch n := cur.Node().(type) {
		case *ast.CommClause:
			switch comm := n.Comm.(type) {
			case *ast.ExprStmt:
				if un, ok := ast.Unparen(comm.X).(*ast.UnaryExpr); ok && un.Op == token.ARROW && isV(un.X) {
					return true
				}
			case *ast.AssignStmt:
				if un, ok := ast.Unparen(comm.Rhs[0]).(*ast.UnaryExpr); ok && un.Op == token.ARROW && isV(un.X) {
					return true
				}
			}
		case *ast.IfStmt:
			// "if ch == nil" or "if ch == never" (a sentinel channel).
			if cond, ok := ast.Unparen(n.Cond).(*ast.BinaryExpr); ok && cond.Op == token.EQL && cur.ChildAt(edge.IfStmt_Body, -1).Contains(c) {
				if isV(cond.X) || isV(cond.Y) {
					return true
				}
			}
		}
	}
	return false
}

// abandonsTimer reports whether some other clause of the select lets the
// loop go on, leaving the timer behind. When every other clause leaves the
// loop, a timer is only left behind once. A clause leaves the loop by
// itself (return, panic, ...) or by falling through to statements after
// the select that leave it.
func abandonsTimer(info *types.Info, sel inspector.Cursor, timerClause *ast.CommClause, loop ast.Stmt, fn ast.Node) bool {
	leavesAfterSelect := lintutil.LeavesLoop(info, sel, loop)
	for _, s := range sel.Node().(*ast.SelectStmt).Body.List {
		cc := s.(*ast.CommClause)
		if cc == timerClause {
			continue
		}
		if lintutil.Leaves(info, cc.Body) {
			continue
		}
		if leavesAfterSelect && !continuesLoop(cc.Body) {
			continue
		}
		if ctx := cancellation(info, cc); ctx != nil && !continuesLoop(cc.Body) && cancelChecked(info, loop, ctx) {
			continue
		}
		if quitCase(info, cc, loop) || oneShot(info, cc, loop, fn) {
			continue
		}
		return true
	}
	return false
}

// cancellation returns ctx when the clause is "case <-ctx.Done():" for a
// context.Context.
func cancellation(info *types.Info, cc *ast.CommClause) ast.Expr {
	es, ok := cc.Comm.(*ast.ExprStmt)
	if !ok {
		return nil
	}
	return doneOf(info, es.X)
}

// doneOf returns ctx when e is <-ctx.Done() for a context.Context.
func doneOf(info *types.Info, e ast.Expr) ast.Expr {
	un, ok := ast.Unparen(e).(*ast.UnaryExpr)
	if !ok || un.Op != token.ARROW {
		return nil
	}
	call, ok := ast.Unparen(un.X).(*ast.CallExpr)
	if !ok || !lintutil.IsMethod(info, call, "context", "Context", "Done") {
		return nil
	}
	return call.Fun.(*ast.SelectorExpr).X
}

// cancelChecked reports whether every iteration of loop first leaves it if
// ctx is canceled: the loop condition tests ctx.Err(), or a statement of
// the body before any other is "select { case <-ctx.Done(): return ...;
// default: }" or "if ctx.Err() != nil { return ... }". A canceled context
// stays canceled, so a select that falls through on <-ctx.Done() leaves a
// timer behind at most once: the loop is a back-off sleep that can be
// interrupted (prometheus storage/remote/queue_manager.go:2403, v0.316.0).
func cancelChecked(info *types.Info, loop ast.Stmt, ctx ast.Expr) bool {
	same := func(e ast.Expr) bool { return types.ExprString(e) == types.ExprString(ctx) }
	isErr := func(e ast.Expr) bool {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		return ok && lintutil.IsMethod(info, call, "context", "Context", "Err") && same(call.Fun.(*ast.SelectorExpr).X)
	}
	if f, ok := loop.(*ast.ForStmt); ok && f.Cond != nil {
		if cond, ok := ast.Unparen(f.Cond).(*ast.BinaryExpr); ok && cond.Op == token.EQL && (isErr(cond.X) || isErr(cond.Y)) {
			return true
		}
	}
	body := lintutil.LoopBody(loop)
	if len(body.List) == 0 {
		return false
	}
	switch s := body.List[0].(type) {
	case *ast.SelectStmt:
		if len(s.Body.List) != 2 {
			return false
		}
		var done, dflt bool
		for _, st := range s.Body.List {
			cc := st.(*ast.CommClause)
			switch {
			case cc.Comm == nil:
				dflt = true
			case cancellation(info, cc) != nil && same(cancellation(info, cc)) && lintutil.Leaves(info, cc.Body):
				done = true
			}
		}
		return done && dflt
	case *ast.IfStmt:
		cond, ok := ast.Unparen(s.Cond).(*ast.BinaryExpr)
		return ok && s.Init == nil && cond.Op == token.NEQ && (isErr(cond.X) || isErr(cond.Y)) && lintutil.Leaves(info, s.Body.List)
	}
	return false
}

// quitCase reports whether the clause is "case v = <-quit:" in a loop
// "for v == nil && ...": receiving a quit request ends the loop at its next
// condition check, whatever the clause does after (go-ethereum
// accounts/usbwallet/wallet.go:196, v1.17.10: a heartbeat loop stopped by
// a channel of error channels). A closed channel would give nil and keep
// the loop going; the idiom sends a non-nil value.
func quitCase(info *types.Info, cc *ast.CommClause, loop ast.Stmt) bool {
	f, ok := loop.(*ast.ForStmt)
	if !ok || f.Cond == nil {
		return false
	}
	as, ok := cc.Comm.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 {
		return false
	}
	v := lintutil.LocalVar(info, as.Lhs[0])
	if v == nil || (v.Pos() >= loop.Pos() && v.Pos() < loop.End()) {
		return false
	}
	for _, s := range cc.Body {
		if lintutil.Modifies(info, s, []*types.Var{v}) {
			return false
		}
	}
	// The condition, or one of its && operands, is "v == nil".
	var isNilTest func(e ast.Expr) bool
	isNilTest = func(e ast.Expr) bool {
		b, ok := ast.Unparen(e).(*ast.BinaryExpr)
		if !ok {
			return false
		}
		switch b.Op {
		case token.LAND:
			return isNilTest(b.X) || isNilTest(b.Y)
		case token.EQL:
			isNil := func(e ast.Expr) bool { tv, ok := info.Types[e]; return ok && tv.IsNil() }
			return (lintutil.LocalVar(info, b.X) == v && isNil(b.Y)) || (lintutil.LocalVar(info, b.Y) == v && isNil(b.X))
		}
		return false
	}
	return isNilTest(f.Cond)
}

// oneShot reports whether the clause receives from a variable that holds
// at most one timer channel during the loop: it is set before the loop
// from time.After (or to nil) and in the loop only to nil. That case wins
// at most once, so the timer of the select is left behind at most once;
// in the other iterations it fires (mimir pkg/usagetracker/
// partition_handler.go:775: a first snapshot at a set time, then one per
// interval).
func oneShot(info *types.Info, cc *ast.CommClause, loop ast.Stmt, fn ast.Node) bool {
	var x ast.Expr
	switch comm := cc.Comm.(type) {
	case *ast.ExprStmt:
		x = comm.X
	case *ast.AssignStmt:
		x = comm.Rhs[0]
	default:
		return false
	}
	un, ok := ast.Unparen(x).(*ast.UnaryExpr)
	if !ok || un.Op != token.ARROW || fn == nil {
		return false
	}
	v := lintutil.LocalVar(info, un.X)
	if v == nil || (v.Pos() >= loop.Pos() && v.Pos() < loop.End()) {
		return false
	}
	inLoop := func(n ast.Node) bool { return n.Pos() >= loop.Pos() && n.Pos() < loop.End() }
	sawAfter := false // the variable is set from time.After at least once
	allowed := func(e ast.Expr, in bool) bool {
		if tv, ok := info.Types[e]; ok && tv.IsNil() {
			return true
		}
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !in && ok && lintutil.IsFunc(info, call, "time", "After") {
			sawAfter = true
			return true
		}
		return false
	}
	ok = true
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if lintutil.LocalVar(info, l) != v && info.Defs[identOf(l)] != v {
					continue
				}
				if len(n.Lhs) != len(n.Rhs) || !allowed(n.Rhs[i], inLoop(n)) {
					ok = false
				}
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if info.Defs[name] == v && i < len(n.Values) && !allowed(n.Values[i], inLoop(n)) {
					ok = false
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && lintutil.LocalVar(info, n.X) == v {
				ok = false
			}
		}
		return ok
	})
	return ok && sawAfter
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(e).(*ast.Ident)
	return id
}

// continuesLoop reports whether body has a continue statement, outside
// nested loops and function literals, that starts the next iteration.
func continuesLoop(body []ast.Stmt) bool {
	found := false
	for _, s := range body {
		ast.Inspect(s, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit:
				return false
			case *ast.BranchStmt:
				if n.Tok == token.CONTINUE {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// hoist builds the fix: one timer created before the loop, Reset before the
// select, received from in place of time.After.
func hoist(pass *analysis.Pass, c inspector.Cursor, call *ast.CallExpr, selCursor inspector.Cursor, loop ast.Stmt, taken map[string]bool) (analysis.SuggestedFix, bool) {
	sel := selCursor.Node().(*ast.SelectStmt)
	info := pass.TypesInfo
	if len(call.Args) != 1 || !lintutil.Pure(info, call.Args[0]) {
		return analysis.SuggestedFix{}, false
	}
	if _, isExprStmt := c.Parent().Parent().Node().(*ast.ExprStmt); !isExprStmt {
		return analysis.SuggestedFix{}, false
	}
	fun, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	timePkg, ok := fun.X.(*ast.Ident)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	// Only one time.After in this select.
	n := 0
	ast.Inspect(sel.Body, func(n2 ast.Node) bool {
		if call2, ok := n2.(*ast.CallExpr); ok && lintutil.IsFunc(info, call2, "time", "After") {
			n++
		}
		return true
	})
	if n != 1 {
		return analysis.SuggestedFix{}, false
	}
	if _, _, ok := lintutil.StmtList(selCursor); !ok {
		return analysis.SuggestedFix{}, false
	}
	loopCursor, ok := c.Inspector().Root().FindNode(loop)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	list, index, ok := lintutil.StmtList(loopCursor)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	loopStart := list[index].Pos()
	name := lintutil.FreeName(pass.Pkg, "timer", taken, loopStart, sel.Pos(), call.Pos())
	taken[name] = true
	dur := lintutil.Text(pass.Fset, call.Args[0])
	// Since Go 1.23, Reset discards any expiry not yet received.
	reset := fmt.Sprintf("%s.Reset(%s)\n", name, dur)
	selStart := sel.Pos()
	if lbl, ok := selCursor.Parent().Node().(*ast.LabeledStmt); ok {
		selStart = lbl.Pos()
	}
	return analysis.SuggestedFix{
		Message: "Reuse one time.Timer",
		TextEdits: []analysis.TextEdit{
			{Pos: loopStart, End: loopStart, NewText: fmt.Appendf(nil, "%s := %s.NewTimer(1<<63 - 1) // Reset before each select\n", name, timePkg.Name)},
			{Pos: selStart, End: selStart, NewText: []byte(reset)},
			{Pos: call.Pos(), End: call.End(), NewText: []byte(name + ".C")},
		},
	}, true
}
