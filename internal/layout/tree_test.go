package layout

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"strings"
)

// srcFile is one parsed non-test Go file of the tree.
type srcFile struct {
	path  string // slash-separated, relative to the module root
	dir   string // path.Dir(path)
	lines int    // physical lines, as wc -l counts them (a last line without newline counts too)
	ast   *ast.File
}

// tree is the module's non-test Go source, in lexical order of path.
type tree struct {
	fset  *token.FileSet
	files []*srcFile
}

// loadTree parses every non-test Go file of the module rooted at fsys.
// It skips what the go command would not build as part of the module:
// testdata and vendor directories, directories whose names start with "."
// or "_", and nested modules (a directory below the root with a go.mod).
func loadTree(fsys fs.FS) (*tree, error) {
	t := &tree{fset: token.NewFileSet()}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && skipDir(fsys, p, d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		return t.parse(fsys, p)
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// skipDir reports whether the directory p, named name, lies outside the
// module's own source.
func skipDir(fsys fs.FS, p, name string) bool {
	if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	_, err := fs.Stat(fsys, path.Join(p, "go.mod"))
	return err == nil
}

// parse adds the file p to the tree.
func (t *tree) parse(fsys fs.FS, p string) error {
	src, err := fs.ReadFile(fsys, p)
	if err != nil {
		return err
	}
	// Object resolution is not needed: the checks resolve the few names
	// they care about from the imports.
	f, err := parser.ParseFile(t.fset, p, src, parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("parse: %v", err)
	}
	lines := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		lines++
	}
	t.files = append(t.files, &srcFile{path: p, dir: path.Dir(p), lines: lines, ast: f})
	return nil
}

// under reports whether the file lies in dir or below it.
func (f *srcFile) under(dir string) bool {
	return f.dir == dir || strings.HasPrefix(f.dir, dir+"/")
}
