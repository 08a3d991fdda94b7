package layout

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"path"
	"slices"
	"strconv"
)

// violation is one breach of a rule, at a position in the tree.
type violation struct {
	pos token.Position
	fn  string // the function it is in; "" at package level
	msg string
}

func (v violation) String() string {
	if v.fn == "" {
		return fmt.Sprintf("%s:%d: %s", v.pos.Filename, v.pos.Line, v.msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", v.pos.Filename, v.pos.Line, v.fn, v.msg)
}

// sortViolations orders violations by position and text, so that a run
// reports them the same way every time.
func sortViolations(vs []violation) {
	slices.SortFunc(vs, func(a, b violation) int {
		return cmp.Or(
			cmp.Compare(a.pos.Filename, b.pos.Filename),
			cmp.Compare(a.pos.Line, b.pos.Line),
			cmp.Compare(a.pos.Column, b.pos.Column),
			cmp.Compare(a.String(), b.String()),
		)
	})
}

// inspect calls fn for every node of f, in depth-first order, with the
// name of the innermost function around it ("" at package level). Names
// follow those the compiler gives in stack traces: F, T.M, (*T).M, F.func1
// for a literal in F, F.func1.1 for a literal in that one, init.func1 for
// a literal at package level (counted per file, where the compiler counts
// per package).
func inspect(f *ast.File, fn func(n ast.Node, name string)) {
	type frame struct {
		node ast.Node
		name string
		lits int // literals met directly inside it so far
	}
	var stack []ast.Node
	var funcs []*frame
	pkgLits := 0
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(funcs) > 0 && funcs[len(funcs)-1].node == top {
				funcs = funcs[:len(funcs)-1]
			}
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.FuncDecl:
			funcs = append(funcs, &frame{node: n, name: declName(n)})
		case *ast.FuncLit:
			var name string
			if len(funcs) == 0 {
				pkgLits++
				name = "init.func" + strconv.Itoa(pkgLits)
			} else {
				outer := funcs[len(funcs)-1]
				outer.lits++
				name = outer.name + "." + strconv.Itoa(outer.lits)
				if _, ok := outer.node.(*ast.FuncDecl); ok {
					name = outer.name + ".func" + strconv.Itoa(outer.lits)
				}
			}
			funcs = append(funcs, &frame{node: n, name: name})
		}
		name := ""
		if len(funcs) > 0 {
			name = funcs[len(funcs)-1].name
		}
		fn(n, name)
		return true
	})
}

// declName names a declared function or method: F, T.M or (*T).M.
func declName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	typ := d.Recv.List[0].Type
	star := false
	if s, ok := typ.(*ast.StarExpr); ok {
		typ, star = s.X, true
	}
	// A generic receiver, T[K, V], is named T as in stack traces.
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	recv := "?"
	if id, ok := typ.(*ast.Ident); ok {
		recv = id.Name
	}
	if star {
		return "(*" + recv + ")." + d.Name.Name
	}
	return recv + "." + d.Name.Name
}

// longFuncs returns the functions, methods and function literals of the
// tree longer than limit lines, from the func keyword to the closing brace.
func longFuncs(t *tree, limit int) []violation {
	var vs []violation
	for _, f := range t.files {
		inspect(f.ast, func(n ast.Node, name string) {
			switch n.(type) {
			case *ast.FuncDecl, *ast.FuncLit:
			default:
				return
			}
			start, end := t.fset.Position(n.Pos()), t.fset.Position(n.End())
			if lines := end.Line - start.Line + 1; lines > limit {
				vs = append(vs, violation{start, name, fmt.Sprintf("%d lines, more than %d", lines, limit)})
			}
		})
	}
	sortViolations(vs)
	return vs
}

// dirLines counts the physical lines of the non-test Go files in dir and
// below, and how many files hold them.
func dirLines(t *tree, dir string) (lines, files int) {
	for _, f := range t.files {
		if f.under(dir) {
			lines += f.lines
			files++
		}
	}
	return lines, files
}

// writers are the standard library's functions that write to standard
// output or standard error by themselves, by import path: fmt's Print
// family and those of log and log/slog that use the default logger.
var writers = map[string][]string{
	"fmt":      {"Print", "Printf", "Println"},
	"log":      {"Print", "Printf", "Println", "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln"},
	"log/slog": {"Debug", "DebugContext", "Info", "InfoContext", "Warn", "WarnContext", "Error", "ErrorContext", "Log", "LogAttrs"},
}

// prints returns the places in the packages under dirs that write to
// standard output or standard error directly: a call of one of writers,
// a use of os.Stdout or os.Stderr (which every other way of writing to
// them needs), or a call of the builtin print or println.
func prints(t *tree, dirs []string) []violation {
	var vs []violation
	own := declaredFuncs(t)
	for _, f := range t.files {
		if !slices.ContainsFunc(dirs, f.under) {
			continue
		}
		imports := importNames(f.ast)
		inspect(f.ast, func(n ast.Node, name string) {
			if what := printsHow(n, imports, own[f.dir]); what != "" {
				vs = append(vs, violation{t.fset.Position(n.Pos()), name, what})
			}
		})
	}
	sortViolations(vs)
	return vs
}

// printsHow says how the node writes to standard output or standard error,
// or returns "". imports maps the file's import names to paths ("." for a
// dot import maps the path to "."); own holds the package's top-level
// function names, which shadow the builtins.
func printsHow(n ast.Node, imports map[string]string, own map[string]bool) string {
	switch n := n.(type) {
	case *ast.SelectorExpr:
		id, ok := n.X.(*ast.Ident)
		if !ok {
			return ""
		}
		pkg := imports[id.Name]
		if pkg == "os" && (n.Sel.Name == "Stdout" || n.Sel.Name == "Stderr") {
			return "uses os." + n.Sel.Name
		}
		if slices.Contains(writers[pkg], n.Sel.Name) {
			return "calls " + pkg + "." + n.Sel.Name
		}
	case *ast.CallExpr:
		id, ok := n.Fun.(*ast.Ident)
		if !ok {
			return ""
		}
		if (id.Name == "print" || id.Name == "println") && !own[id.Name] {
			return "calls the builtin " + id.Name
		}
		for _, pkg := range slices.Sorted(maps.Keys(writers)) {
			if imports["."+pkg] == "." && slices.Contains(writers[pkg], id.Name) && !own[id.Name] {
				return "calls " + pkg + "." + id.Name
			}
		}
	}
	return ""
}

// importNames maps the names a file refers to its imports by to their
// paths; a dot import of p is recorded as "."+p mapping to ".". Blank
// imports are left out.
func importNames(f *ast.File) map[string]string {
	m := make(map[string]string, len(f.Imports))
	for _, s := range f.Imports {
		p, err := strconv.Unquote(s.Path.Value)
		if err != nil {
			continue
		}
		name := path.Base(p)
		if s.Name != nil {
			name = s.Name.Name
		}
		switch name {
		case "_":
		case ".":
			m["."+p] = "."
		default:
			m[name] = p
		}
	}
	return m
}

// declaredFuncs returns, for each directory, the names of the functions
// its package declares at top level.
func declaredFuncs(t *tree) map[string]map[string]bool {
	m := make(map[string]map[string]bool)
	for _, f := range t.files {
		for _, d := range f.ast.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil {
				continue
			}
			if m[f.dir] == nil {
				m[f.dir] = make(map[string]bool)
			}
			m[f.dir][fd.Name.Name] = true
		}
	}
	return m
}

// countCommands counts the commands the files under dir define: composite
// literals of cobra.Command.
func countCommands(t *tree, dir string) int {
	n := 0
	for _, f := range t.files {
		if !f.under(dir) {
			continue
		}
		ast.Inspect(f.ast, func(node ast.Node) bool {
			if lit, ok := node.(*ast.CompositeLit); ok {
				if sel, ok := lit.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Command" {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "cobra" {
						n++
					}
				}
			}
			return true
		})
	}
	return n
}
