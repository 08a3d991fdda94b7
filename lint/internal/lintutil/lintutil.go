// Package lintutil holds helpers shared by the gcdoctor analyzers: where a
// node runs (in a loop, in an HTTP handler), Go version checks, and small
// helpers for building suggested fixes.
package lintutil

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"go/version"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/edge"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// RulesURL is the base of every analyzer's URL.
const RulesURL = "https://github.com/gcdoctor/gcdoctor/blob/main/docs/rules.md#"

// Title returns the first line of an analyzer's documentation.
func Title(doc string) string {
	title, _, _ := strings.Cut(doc, "\n")
	return strings.TrimSpace(strings.TrimLeft(title, "# "))
}

// Skip reports whether a file should not be checked: generated files and
// tests (allocation costs in tests do not reach production).
func Skip(pass *analysis.Pass, file *ast.File) bool {
	if ast.IsGenerated(file) {
		return true
	}
	name := pass.Fset.File(file.Pos()).Name()
	return strings.HasSuffix(name, "_test.go")
}

// Files yields a cursor for each file of the package that should be checked.
func Files(pass *analysis.Pass) []inspector.Cursor {
	insp := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	var out []inspector.Cursor
	for c := range insp.Root().Children() {
		if f, ok := c.Node().(*ast.File); ok && !Skip(pass, f) {
			out = append(out, c)
		}
	}
	return out
}

// Place describes where a node executes.
type Place struct {
	// Loop is the innermost for or range statement of the same function
	// whose body (or condition or post statement) contains the node; nil
	// when the node is not repeated by a loop.
	Loop ast.Stmt
	// Handler is true when the enclosing function has the signature of an
	// HTTP handler: (http.ResponseWriter, *http.Request).
	Handler bool
	// Func is the enclosing *ast.FuncDecl or *ast.FuncLit (nil at package level).
	Func ast.Node
	// FuncDecl is the enclosing top-level function declaration, if any.
	FuncDecl *ast.FuncDecl
}

// Hot reports whether the node runs per iteration or per request.
func (p Place) Hot() bool { return p.Loop != nil || p.Handler }

// Where reports where the node at c executes. The search stops at the
// nearest enclosing function: a function literal declared in a loop is not
// itself considered to run per iteration.
func Where(info *types.Info, c inspector.Cursor) Place {
	var p Place
	for cur := c; ; {
		parent := cur.Parent()
		if !parent.Valid() {
			return p
		}
		kind := cur.ParentEdgeKind()
		switch n := parent.Node().(type) {
		case *ast.ForStmt:
			if p.Loop == nil && p.Func == nil && (kind == edge.ForStmt_Body || kind == edge.ForStmt_Cond || kind == edge.ForStmt_Post) {
				p.Loop = n
			}
		case *ast.RangeStmt:
			if p.Loop == nil && p.Func == nil && kind == edge.RangeStmt_Body {
				p.Loop = n
			}
		case *ast.FuncLit:
			if p.Func == nil {
				p.Func = n
				p.Handler = IsHandlerType(info, n.Type)
			}
		case *ast.FuncDecl:
			if p.Func == nil {
				p.Func = n
				p.Handler = IsHandlerType(info, n.Type)
			}
			p.FuncDecl = n
			return p
		}
		cur = parent
	}
}

// IsHandlerType reports whether a function type has exactly the parameters
// (http.ResponseWriter, *http.Request).
func IsHandlerType(info *types.Info, ft *ast.FuncType) bool {
	if ft == nil || ft.Params == nil {
		return false
	}
	var params []types.Type
	for _, f := range ft.Params.List {
		t := info.TypeOf(f.Type)
		n := len(f.Names)
		if n == 0 {
			n = 1
		}
		for range n {
			params = append(params, t)
		}
	}
	if len(params) != 2 || params[0] == nil || params[1] == nil {
		return false
	}
	if !IsNamed(params[0], "net/http", "ResponseWriter") {
		return false
	}
	ptr, ok := params[1].(*types.Pointer)
	return ok && IsNamed(ptr.Elem(), "net/http", "Request")
}

// IsNamed reports whether t is the named type path.name.
func IsNamed(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	obj := n.Obj()
	return obj.Pkg() != nil && obj.Pkg().Path() == path && obj.Name() == name
}

// IsFunc reports whether call calls the package-level function path.name.
func IsFunc(info *types.Info, call *ast.CallExpr, path string, names ...string) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != path {
		return false
	}
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		return false
	}
	for _, n := range names {
		if fn.Name() == n {
			return true
		}
	}
	return false
}

// IsMethod reports whether call calls method name of the named type path.typ
// (through a value or a pointer).
func IsMethod(info *types.Info, call *ast.CallExpr, path, typ, name string) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Name() != name {
		return false
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	return IsNamed(t, path, typ)
}

// FileVersion returns the Go version in force for file ("go1.22"), or ""
// when unknown (no go.mod, GOPATH mode).
func FileVersion(pass *analysis.Pass, file *ast.File) string {
	if v := pass.TypesInfo.FileVersions[file]; v != "" {
		return v
	}
	return pass.Pkg.GoVersion()
}

// AtLeast reports whether the version v is at least min. An unknown version
// counts as the newest.
func AtLeast(v, min string) bool {
	if v == "" || !version.IsValid(v) {
		return true
	}
	return version.Compare(v, min) >= 0
}

// EnclosingFile returns the file containing the node at c.
func EnclosingFile(c inspector.Cursor) *ast.File {
	for cur := range c.Enclosing((*ast.File)(nil)) {
		return cur.Node().(*ast.File)
	}
	return nil
}

// Text returns the source text of n, formatted.
func Text(fset *token.FileSet, n ast.Node) string {
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, n); err != nil {
		return ""
	}
	return buf.String()
}

// Pure reports whether evaluating e has no side effects and is cheap enough
// to repeat: identifiers, constants, selectors, field and index access,
// arithmetic, conversions and len/cap calls.
func Pure(info *types.Info, e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case nil, *ast.Ident, *ast.BasicLit, *ast.SelectorExpr, *ast.IndexExpr, *ast.ParenExpr, *ast.BinaryExpr, *ast.StarExpr:
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ok = false
			}
		case *ast.CallExpr:
			if tv, found := info.Types[n.Fun]; found && tv.IsType() {
				return true
			}
			if id, isIdent := ast.Unparen(n.Fun).(*ast.Ident); isIdent {
				if b, isBuiltin := info.Uses[id].(*types.Builtin); isBuiltin && (b.Name() == "len" || b.Name() == "cap") {
					return true
				}
			}
			ok = false
		default:
			if _, isType := n.(ast.Expr); isType {
				if tv, found := info.Types[n.(ast.Expr)]; found && tv.IsType() {
					return false
				}
			}
			ok = false
		}
		return ok
	})
	return ok
}

// Objects returns the variables referenced by e.
func Objects(info *types.Info, e ast.Node) []*types.Var {
	var out []*types.Var
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok {
				out = append(out, v)
			}
		}
		return true
	})
	return out
}

// Mentions reports whether any identifier in n refers to obj.
func Mentions(info *types.Info, n ast.Node, obj types.Object) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if found {
			return false
		}
		if id, ok := n.(*ast.Ident); ok && (info.Uses[id] == obj || info.Defs[id] == obj) {
			found = true
		}
		return true
	})
	return found
}

// Modifies reports whether n assigns to, increments or takes the address of
// any of vars, or declares a closure that might.
func Modifies(info *types.Info, n ast.Node, vars []*types.Var) bool {
	is := func(e ast.Expr) bool {
		e = ast.Unparen(e)
		for {
			switch x := e.(type) {
			case *ast.SelectorExpr:
				e = x.X
				continue
			case *ast.IndexExpr:
				e = x.X
				continue
			case *ast.StarExpr:
				e = x.X
				continue
			}
			break
		}
		id, ok := e.(*ast.Ident)
		if !ok {
			return false
		}
		for _, v := range vars {
			if info.Uses[id] == v {
				return true
			}
		}
		return false
	}
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if is(l) {
					found = true
				}
			}
		case *ast.IncDecStmt:
			found = is(n.X)
		case *ast.UnaryExpr:
			if n.Op == token.AND && is(n.X) {
				found = true
			}
		case *ast.RangeStmt:
			if (n.Key != nil && is(n.Key)) || (n.Value != nil && is(n.Value)) {
				found = true
			}
		}
		return !found
	})
	return found
}

// DeclaredBefore reports whether every variable in e is declared before pos
// (or at package level).
func DeclaredBefore(info *types.Info, e ast.Expr, pos token.Pos) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		if id, isIdent := n.(*ast.Ident); isIdent {
			if obj := info.Uses[id]; obj != nil && obj.Pkg() != nil && obj.Parent() != nil && obj.Parent() != obj.Pkg().Scope() && obj.Pos() >= pos {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// ImportName returns the name under which file imports path, or "" if it does not.
func ImportName(file *ast.File, path string) string {
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != path {
			continue
		}
		if imp.Name != nil {
			if imp.Name.Name == "_" || imp.Name.Name == "." {
				continue
			}
			return imp.Name.Name
		}
		return path[strings.LastIndex(path, "/")+1:]
	}
	return ""
}

// AddImport returns the name to use for package path in file and, if the
// file does not import it yet, an edit adding the import. ok is false when
// the default name is taken at pos by some other declaration.
func AddImport(info *types.Info, pkg *types.Package, file *ast.File, path string, pos token.Pos) (name string, edits []analysis.TextEdit, ok bool) {
	if name := ImportName(file, path); name != "" {
		if obj, _ := LookupAt(pkg, pos, name); obj != nil {
			if pn, isPkg := obj.(*types.PkgName); isPkg && pn.Imported().Path() == path {
				return name, nil, true
			}
			return "", nil, false
		}
		return name, nil, true
	}
	name = path[strings.LastIndex(path, "/")+1:]
	if obj, _ := LookupAt(pkg, pos, name); obj != nil {
		return "", nil, false
	}
	if pkg.Scope().Lookup(name) != nil {
		return "", nil, false
	}
	quoted := strconv.Quote(path)
	for _, d := range file.Decls {
		gd, isGen := d.(*ast.GenDecl)
		if !isGen || gd.Tok != token.IMPORT {
			break
		}
		if gd.Lparen.IsValid() {
			return name, []analysis.TextEdit{{Pos: gd.Lparen + 1, End: gd.Lparen + 1, NewText: []byte("\n\t" + quoted)}}, true
		}
		return name, []analysis.TextEdit{{Pos: gd.Pos(), End: gd.Pos(), NewText: []byte("import " + quoted + "\n")}}, true
	}
	return name, []analysis.TextEdit{{Pos: file.Name.End(), End: file.Name.End(), NewText: []byte("\n\nimport " + quoted + "\n")}}, true
}

// LookupAt resolves name at pos in the innermost scope of pkg containing pos.
func LookupAt(pkg *types.Package, pos token.Pos, name string) (types.Object, *types.Scope) {
	scope := pkg.Scope().Innermost(pos)
	if scope == nil {
		scope = pkg.Scope()
	}
	s, obj := scope.LookupParent(name, pos)
	return obj, s
}

// FreeName returns base, or base with a numeric suffix, such that the name
// is declared neither at package level, nor anywhere in the file's scopes
// containing any of positions, nor in taken.
func FreeName(pkg *types.Package, base string, taken map[string]bool, positions ...token.Pos) string {
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = base + strconv.Itoa(i)
		}
		if taken[name] || pkg.Scope().Lookup(name) != nil || types.Universe.Lookup(name) != nil {
			continue
		}
		free := true
		for _, pos := range positions {
			if obj, _ := LookupAt(pkg, pos, name); obj != nil {
				free = false
			}
		}
		if free {
			return name
		}
	}
}

// InFuncLit reports whether the node at c is inside a function literal that
// is itself inside stop.
func InFuncLit(c inspector.Cursor, stop ast.Node) bool {
	for cur := c.Parent(); cur.Valid() && cur.Node() != stop; cur = cur.Parent() {
		if _, ok := cur.Node().(*ast.FuncLit); ok {
			return true
		}
	}
	return false
}
