package lintutil

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"
)

// Count describes the number of iterations of a loop, known before it runs.
type Count struct {
	Expr ast.Expr     // the expression the count is computed from
	Text string       // source text of the count: "len(xs)" or "n"
	Vars []*types.Var // variables the count depends on
}

// LoopCount returns the number of iterations of loop when it is known
// before the loop starts: a range over a slice, array, pointer to array,
// map, string (an upper bound: bytes, not runes) or integer, or a counted
// loop "for i := 0; i < n; i++" whose bound and index the body never
// changes.
func LoopCount(pass *analysis.Pass, loop ast.Stmt) (Count, bool) {
	info := pass.TypesInfo
	switch loop := loop.(type) {
	case *ast.RangeStmt:
		if !Pure(info, loop.X) {
			return Count{}, false
		}
		t := info.TypeOf(loop.X)
		if t == nil {
			return Count{}, false
		}
		x := Text(pass.Fset, loop.X)
		switch u := t.Underlying().(type) {
		case *types.Basic:
			if u.Info()&types.IsInteger != 0 {
				return Count{Expr: loop.X, Text: x, Vars: Objects(info, loop.X)}, true
			}
			if u.Info()&types.IsString != 0 {
				return Count{Expr: loop.X, Text: "len(" + x + ")", Vars: Objects(info, loop.X)}, true
			}
		case *types.Slice, *types.Array, *types.Map:
			return Count{Expr: loop.X, Text: "len(" + x + ")", Vars: Objects(info, loop.X)}, true
		case *types.Pointer:
			if _, ok := u.Elem().Underlying().(*types.Array); ok {
				return Count{Expr: loop.X, Text: "len(" + x + ")", Vars: Objects(info, loop.X)}, true
			}
		}
	case *ast.ForStmt:
		init, ok := loop.Init.(*ast.AssignStmt)
		if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
			return Count{}, false
		}
		idx, ok := init.Lhs[0].(*ast.Ident)
		if !ok {
			return Count{}, false
		}
		if lit, ok := init.Rhs[0].(*ast.BasicLit); !ok || lit.Value != "0" {
			return Count{}, false
		}
		iv, _ := info.Defs[idx].(*types.Var)
		cond, ok := loop.Cond.(*ast.BinaryExpr)
		if iv == nil || !ok || cond.Op != token.LSS {
			return Count{}, false
		}
		if id, ok := ast.Unparen(cond.X).(*ast.Ident); !ok || info.Uses[id] != iv {
			return Count{}, false
		}
		post, ok := loop.Post.(*ast.IncDecStmt)
		if !ok || post.Tok != token.INC {
			return Count{}, false
		}
		if id, ok := post.X.(*ast.Ident); !ok || info.Uses[id] != iv {
			return Count{}, false
		}
		if !Pure(info, cond.Y) {
			return Count{}, false
		}
		vars := Objects(info, cond.Y)
		if Modifies(info, loop.Body, append([]*types.Var{iv}, vars...)) {
			return Count{}, false
		}
		return Count{Expr: cond.Y, Text: Text(pass.Fset, cond.Y), Vars: vars}, true
	}
	return Count{}, false
}

// LoopBody returns the body of a for or range statement.
func LoopBody(loop ast.Stmt) *ast.BlockStmt {
	switch loop := loop.(type) {
	case *ast.ForStmt:
		return loop.Body
	case *ast.RangeStmt:
		return loop.Body
	}
	return nil
}

// RunsEveryIteration reports whether every iteration of a loop with this
// body runs to the end of the body: no return, goto, break or continue
// that leaves or restarts the loop, and no panic call.
func RunsEveryIteration(info *types.Info, body *ast.BlockStmt) bool {
	ok := true
	var visit func(n ast.Node, inBreakable bool) bool
	visit = func(n ast.Node, inBreakable bool) bool {
		ast.Inspect(n, func(n ast.Node) bool {
			if !ok || n == nil {
				return false
			}
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				ok = false
			case *ast.BranchStmt:
				switch {
				case n.Label != nil, n.Tok == token.GOTO, n.Tok == token.CONTINUE:
					ok = false
				case n.Tok == token.BREAK && !inBreakable:
					ok = false
				}
			case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				if !inBreakable {
					var children []ast.Node
					switch n := n.(type) {
					case *ast.ForStmt:
						children = []ast.Node{n.Body}
					case *ast.RangeStmt:
						children = []ast.Node{n.Body}
					case *ast.SwitchStmt:
						children = []ast.Node{n.Body}
					case *ast.TypeSwitchStmt:
						children = []ast.Node{n.Body}
					case *ast.SelectStmt:
						children = []ast.Node{n.Body}
					}
					for _, c := range children {
						visit(c, true)
					}
					return false
				}
			case *ast.CallExpr:
				if id, isIdent := ast.Unparen(n.Fun).(*ast.Ident); isIdent {
					if b, isBuiltin := info.Uses[id].(*types.Builtin); isBuiltin && b.Name() == "panic" {
						ok = false
					}
				}
			}
			return ok
		})
		return ok
	}
	return visit(body, false)
}

// StmtList returns the statement list that directly contains stmt (looking
// through a label) and stmt's index in it.
func StmtList(c inspector.Cursor) (list []ast.Stmt, index int, ok bool) {
	if _, isLabeled := c.Parent().Node().(*ast.LabeledStmt); isLabeled {
		c = c.Parent()
	}
	stmt, _ := c.Node().(ast.Stmt)
	switch p := c.Parent().Node().(type) {
	case *ast.BlockStmt:
		list = p.List
	case *ast.CaseClause:
		list = p.Body
	case *ast.CommClause:
		list = p.Body
	default:
		return nil, 0, false
	}
	for i, s := range list {
		if s == stmt {
			return list, i, true
		}
	}
	return nil, 0, false
}

// PrecedingDecl finds the statement before list[index] that declares v,
// requiring that no statement in between mentions v. It returns the
// declaration and the statements in between.
func PrecedingDecl(info *types.Info, list []ast.Stmt, index int, v types.Object) (decl ast.Stmt, between []ast.Stmt, ok bool) {
	for j := index - 1; j >= 0; j-- {
		s := list[j]
		if Declares(info, s, v) {
			return s, list[j+1 : index], true
		}
		if Mentions(info, s, v) {
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// Declares reports whether stmt is a declaration of exactly v.
func Declares(info *types.Info, stmt ast.Stmt, v types.Object) bool {
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE && len(s.Lhs) == 1 {
			if id, ok := s.Lhs[0].(*ast.Ident); ok && info.Defs[id] == v {
				return true
			}
		}
	case *ast.DeclStmt:
		gd, ok := s.Decl.(*ast.GenDecl)
		if ok && gd.Tok == token.VAR && len(gd.Specs) == 1 && !gd.Lparen.IsValid() {
			vs := gd.Specs[0].(*ast.ValueSpec)
			if len(vs.Names) == 1 && info.Defs[vs.Names[0]] == v {
				return true
			}
		}
	}
	return false
}

// DeclValue returns the declared type expression (may be nil) and the
// initial value (may be nil) of a declaration accepted by Declares.
func DeclValue(stmt ast.Stmt) (typ, value ast.Expr) {
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		return nil, s.Rhs[0]
	case *ast.DeclStmt:
		vs := s.Decl.(*ast.GenDecl).Specs[0].(*ast.ValueSpec)
		if len(vs.Values) == 1 {
			return vs.Type, vs.Values[0]
		}
		return vs.Type, nil
	}
	return nil, nil
}

// CountUses returns how many identifiers in n refer to v.
func CountUses(info *types.Info, n ast.Node, v types.Object) int {
	count := 0
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == v {
			count++
		}
		return true
	})
	return count
}

// IsBuiltin reports whether call calls the builtin name.
func IsBuiltin(info *types.Info, call *ast.CallExpr, name string) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == name
}

// LocalVar returns the local variable e refers to, if e is an identifier
// naming a variable declared inside a function.
func LocalVar(info *types.Info, e ast.Expr) *types.Var {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	return v
}

// CountedLoop is a loop whose number of iterations is known before it
// starts and whose every iteration runs the body to the end: a value grown
// by one element per iteration of its body ends with Count more elements.
// appendprealloc and mapprealloc look for slices and maps grown so.
type CountedLoop struct {
	Count Count
	Body  *ast.BlockStmt
	list  []ast.Stmt // the statements around the loop
	index int        // the loop's index in list
}

// CountedLoopAt returns the counted loop at c (a for or range statement),
// if it is one and directly in a statement list, where a declaration
// before it can be found.
func CountedLoopAt(pass *analysis.Pass, c inspector.Cursor) (CountedLoop, bool) {
	loop := c.Node().(ast.Stmt)
	count, ok := LoopCount(pass, loop)
	if !ok {
		return CountedLoop{}, false
	}
	body := LoopBody(loop)
	if !RunsEveryIteration(pass.TypesInfo, body) {
		return CountedLoop{}, false
	}
	list, index, ok := StmtList(c)
	if !ok {
		return CountedLoop{}, false
	}
	return CountedLoop{Count: count, Body: body, list: list, index: index}, true
}

// DeclBefore finds the declaration of v among the statements before the
// loop, requiring that none in between mentions v. fixable reports
// whether the count can be computed at the declaration instead: every
// variable it uses is declared before it and none is changed in between.
func (l CountedLoop) DeclBefore(info *types.Info, v types.Object) (decl ast.Stmt, fixable, ok bool) {
	decl, between, ok := PrecedingDecl(info, l.list, l.index, v)
	if !ok {
		return nil, false, false
	}
	if !DeclaredBefore(info, l.Count.Expr, decl.Pos()) {
		return decl, false, true
	}
	for _, s := range between {
		if Modifies(info, s, l.Count.Vars) {
			return decl, false, true
		}
	}
	return decl, true, true
}

// InKeySwitch reports whether the node at c runs at most once per key of
// loop, a range over a map: it is in a case with constant values of a
// switch on the key (or on a value computed from the key alone, such as
// strings.ToLower(key)). Map keys are distinct, so such a case runs about
// once per map, not once per iteration: the idiom of options read from a
// map (nats-server opts.go:5316, hugo commands/import.go:281).
func InKeySwitch(info *types.Info, c inspector.Cursor, loop ast.Stmt) bool {
	rng, ok := loop.(*ast.RangeStmt)
	if !ok || rng.Key == nil {
		return false
	}
	if t := info.TypeOf(rng.X); t == nil {
		return false
	} else if _, isMap := t.Underlying().(*types.Map); !isMap {
		return false
	}
	keyID, ok := rng.Key.(*ast.Ident)
	if !ok {
		return false
	}
	key := info.ObjectOf(keyID)
	if key == nil || Modifies(info, rng.Body, []*types.Var{key.(*types.Var)}) {
		return false
	}
	for cur := c.Parent(); cur.Node() != nil && cur.Node() != loop; cur = cur.Parent() {
		cc, ok := cur.Node().(*ast.CaseClause)
		if !ok || len(cc.List) == 0 {
			continue // the default case runs for every other key
		}
		sw, ok := cur.Parent().Parent().Node().(*ast.SwitchStmt)
		if !ok || sw.Tag == nil {
			continue
		}
		constant := true
		for _, e := range cc.List {
			if tv, ok := info.Types[e]; !ok || tv.Value == nil {
				constant = false
			}
		}
		if constant && fromKey(info, sw.Tag, key, rng.Body) {
			return true
		}
	}
	return false
}

// fromKey reports whether e depends on no variable but key, directly or
// through local variables of body set once from key alone.
func fromKey(info *types.Info, e ast.Expr, key types.Object, body *ast.BlockStmt) bool {
	for _, v := range Objects(info, e) {
		if v == key {
			continue
		}
		if v.Pos() < body.Pos() || v.Pos() >= body.End() || Modifies(info, body, []*types.Var{v}) {
			return false
		}
		init := declInit(info, body, v)
		if init == nil {
			return false
		}
		for _, w := range Objects(info, init) {
			if w != key {
				return false
			}
		}
	}
	return true
}

// declInit returns x of the statement "v := x" at the top of body.
func declInit(info *types.Info, body *ast.BlockStmt, v *types.Var) ast.Expr {
	for _, s := range body.List {
		if Declares(info, s, v) {
			_, value := DeclValue(s)
			return value
		}
	}
	return nil
}

// LeavesLoop reports whether the node at c, in loop, runs at most once per
// execution of the loop because the statement holding it, or one after it
// on every path to the end of the loop body, leaves the loop: return,
// panic, os.Exit, log.Fatal, goto, a labeled break, or a break that ends
// the loop. Such code is on the loop's way out (vault command/server.go:2102,
// v1.21.4: a buffer for a stack dump before returning an error).
func LeavesLoop(info *types.Info, c inspector.Cursor, loop ast.Stmt) bool {
	stmt := c
	for ; stmt.Node() != nil && stmt.Node() != loop; stmt = stmt.Parent() {
		if _, isStmt := stmt.Node().(ast.Stmt); isStmt {
			break
		}
	}
	if stmt.Node() == nil || stmt.Node() == loop {
		return false
	}
	if Leaves(info, []ast.Stmt{stmt.Node().(ast.Stmt)}) {
		return true
	}
	for cur := stmt; cur.Node() != loop; cur = cur.Parent() {
		switch cur.Node().(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit:
			return false // another loop, or a function, in between
		case *ast.CaseClause, *ast.CommClause:
			continue
		}
		if _, isStmt := cur.Node().(ast.Stmt); !isStmt {
			continue
		}
		list, index, ok := StmtList(cur)
		if !ok {
			continue
		}
	scan:
		for _, s := range list[index+1:] {
			if b, ok := s.(*ast.BranchStmt); ok && b.Label == nil {
				switch b.Tok {
				case token.CONTINUE:
					return false
				case token.BREAK:
					if !breaksInner(cur, loop) {
						return true
					}
					break scan // on after the switch, select or inner loop
				}
			}
			if Leaves(info, []ast.Stmt{s}) {
				return true
			}
		}
	}
	return false
}

// breaksInner reports whether the statement at c is inside a switch,
// select or loop statement inside loop, which an unlabeled break would end.
func breaksInner(c inspector.Cursor, loop ast.Stmt) bool {
	for p := c.Parent(); p.Node() != loop; p = p.Parent() {
		switch p.Node().(type) {
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.ForStmt, *ast.RangeStmt:
			return true
		}
	}
	return false
}

// Leaves reports whether the statement list ends by leaving the enclosing
// loop and function: return, panic, os.Exit, log.Fatal or log.Panic, goto,
// or a labeled break (taken to be out of the loop).
func Leaves(info *types.Info, body []ast.Stmt) bool {
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
			return IsBuiltin(info, call, "panic") || IsFunc(info, call, "os", "Exit") || IsFunc(info, call, "log", "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln")
		}
	case *ast.BlockStmt:
		return Leaves(info, s.List)
	}
	return false
}

// OuterLoop returns the loop of the same function whose body (or condition
// or post statement) contains loop, the statement at or above c; nil if
// there is none.
func OuterLoop(info *types.Info, c inspector.Cursor, loop ast.Stmt) ast.Stmt {
	for cur := c; cur.Node() != nil; cur = cur.Parent() {
		if cur.Node() == loop {
			return Where(info, cur).Loop
		}
	}
	return nil
}
