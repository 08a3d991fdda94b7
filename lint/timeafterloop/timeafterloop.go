package timeafterloop

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
			sel, clause := selectCase(c)
			if sel == nil && !assignedInLoop(c, place.Loop) {
				continue // a plain <-time.After(d) is a sleep: its timer fires
			}
			if sel != nil && !abandonsTimer(pass.TypesInfo, sel, clause) {
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
				if fix, ok := hoist(pass, c, call, sel, place.Loop, taken); ok {
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
func selectCase(c inspector.Cursor) (*ast.SelectStmt, *ast.CommClause) {
	un, ok := c.Parent().Node().(*ast.UnaryExpr)
	if !ok || un.Op != token.ARROW {
		return nil, nil
	}
	p := c.Parent().Parent()
	switch n := p.Node().(type) {
	case *ast.ExprStmt:
	case *ast.AssignStmt:
		if len(n.Rhs) != 1 {
			return nil, nil
		}
	default:
		return nil, nil
	}
	clause, ok := p.Parent().Node().(*ast.CommClause)
	if !ok || clause.Comm != p.Node() {
		return nil, nil
	}
	sel, ok := p.Parent().Parent().Parent().Node().(*ast.SelectStmt)
	if !ok {
		return nil, nil
	}
	return sel, clause
}

// assignedInLoop reports whether the call's channel is stored in a variable
// (ch := time.After(d)), to be used later in the same iteration.
func assignedInLoop(c inspector.Cursor, loop ast.Stmt) bool {
	as, ok := c.Parent().Node().(*ast.AssignStmt)
	return ok && len(as.Rhs) == 1 && as.Rhs[0] == c.Node()
}

// abandonsTimer reports whether some other clause of the select lets the
// loop go on, leaving the timer behind. When every other clause leaves the
// loop, a timer is only left behind once.
func abandonsTimer(info *types.Info, sel *ast.SelectStmt, timerClause *ast.CommClause) bool {
	for _, s := range sel.Body.List {
		cc := s.(*ast.CommClause)
		if cc == timerClause {
			continue
		}
		if !leaves(info, cc.Body) {
			return true
		}
	}
	return false
}

func leaves(info *types.Info, body []ast.Stmt) bool {
	if len(body) == 0 {
		return false
	}
	switch s := body[len(body)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.GOTO || (s.Tok == token.BREAK && s.Label != nil)
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			return lintutil.IsBuiltin(info, call, "panic") || lintutil.IsFunc(info, call, "os", "Exit") || lintutil.IsFunc(info, call, "log", "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln")
		}
	case *ast.BlockStmt:
		return leaves(info, s.List)
	}
	return false
}

// hoist builds the fix: one timer created before the loop, Reset before the
// select, received from in place of time.After.
func hoist(pass *analysis.Pass, c inspector.Cursor, call *ast.CallExpr, sel *ast.SelectStmt, loop ast.Stmt, taken map[string]bool) (analysis.SuggestedFix, bool) {
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
	selCursor, ok := c.Inspector().Root().FindNode(sel)
	if !ok {
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
