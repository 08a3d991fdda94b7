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
