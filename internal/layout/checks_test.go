package layout

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// module builds a module of the given files, path to source.
func module(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{"go.mod": {Data: []byte("module example.com/m\n")}}
	for p, src := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(src)}
	}
	return fsys
}

// body returns the statements that make a function n lines long, its func
// line and closing brace included.
func body(n int) string { return strings.Repeat("\t_ = 0\n", n-2) }

// fn returns a declaration of n lines: "func " + sig + " {", the body, "}".
func fn(sig string, n int) string { return "func " + sig + " {\n" + body(n) + "}\n" }

func strs(vs []violation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

func TestLongFuncs(t *testing.T) {
	long := "package a\n\n" + fn("Long()", 121) // Long starts on line 3
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"at the limit", map[string]string{"a/a.go": "package a\n\n" + fn("F()", 120)}, nil},
		{"one over", map[string]string{"a/a.go": long}, []string{"a/a.go:3: Long: 121 lines, more than 120"}},
		{"methods", map[string]string{"a/a.go": "package a\n\ntype T int\ntype G[K any] struct{}\n\n" +
			fn("(t *T) P()", 121) + fn("(T) V()", 121) + fn("(g *G[K]) M()", 121) + fn("(G[K]) N()", 10)},
			[]string{"a/a.go:6: (*T).P: 121 lines, more than 120", "a/a.go:127: T.V: 121 lines, more than 120", "a/a.go:248: (*G).M: 121 lines, more than 120"}},
		{"literals", map[string]string{"a/a.go": "package a\n\nvar x = func() {\n" + body(121) + "}\n\n" +
			"func F() {\n\t_ = func() {}\n\t_ = func() {\n\t\t_ = func() {\n" + body(121) + "\t\t}\n\t}\n}\n"},
			[]string{
				"a/a.go:3: init.func1: 121 lines, more than 120",
				"a/a.go:125: F: 126 lines, more than 120",
				"a/a.go:127: F.func2: 123 lines, more than 120",
				"a/a.go:128: F.func2.1: 121 lines, more than 120",
			}},
		{"outside the module's source", map[string]string{
			"a/a_test.go":         long,
			"a/testdata/a.go":     long,
			"vendor/v/a.go":       long,
			".hidden/a.go":        long,
			"_old/a.go":           long,
			"nested/go.mod":       "module example.com/nested\n",
			"nested/a.go":         long,
			"nested/deeper/b.go":  long,
			"a/notgo.txt":         long,
			"a/testdata/x/y/z.go": long,
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := loadTree(module(tc.files))
			if err != nil {
				t.Fatal(err)
			}
			if got := strs(longFuncs(tr, 120)); !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}

func TestLoadTreeRefusesBadSource(t *testing.T) {
	_, err := loadTree(module(map[string]string{"a/a.go": "package a\n\nfunc F( {\n"}))
	if err == nil || !strings.Contains(err.Error(), "a/a.go:3:") {
		t.Errorf("err = %v, want a parse error at a/a.go:3", err)
	}
}

func TestDirLines(t *testing.T) {
	fsys := module(map[string]string{
		"cli/a.go":          "package cli\n\nfunc F() {}\n",
		"cli/b.go":          "package cli\n\nvar x = 1", // no final newline: still 3 lines
		"cli/sub/c.go":      "package sub\n",
		"cli/a_test.go":     "package cli\n\n\n\n",
		"cli/testdata/d.go": "package d\n\n\n\n",
		"clix/e.go":         "package clix\n\n\n\n",
	})
	tr, err := loadTree(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if lines, files := dirLines(tr, "cli"); lines != 7 || files != 3 {
		t.Errorf("dirLines(cli) = %d lines in %d files, want 7 in 3", lines, files)
	}
}

func TestPrints(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string // the source of an/a.go
		want []string
	}{
		{"fmt.Println", "package an\n\nimport \"fmt\"\n\nfunc F() { fmt.Println() }\n",
			[]string{"an/a.go:5: F: calls fmt.Println"}},
		{"Fprintf to stderr", "package an\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc F() { fmt.Fprintf(os.Stderr, \"x\") }\n",
			[]string{"an/a.go:8: F: uses os.Stderr"}},
		{"os.Stdout.Write in a method's literal", "package an\n\nimport \"os\"\n\ntype T int\n\nfunc (*T) M() { _ = func() { os.Stdout.Write(nil) } }\n",
			[]string{"an/a.go:7: (*T).M.func1: uses os.Stdout"}},
		{"at package level", "package an\n\nimport \"os\"\n\nvar w = os.Stdout\n",
			[]string{"an/a.go:5: uses os.Stdout"}},
		{"in package-level literals", "package an\n\nimport \"fmt\"\n\nvar x = func() {}\n\nvar y = func() { _ = func() { fmt.Println() } }\n",
			[]string{"an/a.go:7: init.func2.1: calls fmt.Println"}},
		{"a writer of its own", "package an\n\nimport (\n\t\"fmt\"\n\t\"io\"\n)\n\nfunc F(w io.Writer) string { fmt.Fprintf(w, \"x\"); return fmt.Sprint(1) }\n",
			nil},
		{"builtin println", "package an\n\nfunc F() { println(1); print(2) }\n",
			[]string{"an/a.go:3: F: calls the builtin println", "an/a.go:3: F: calls the builtin print"}},
		{"renamed fmt", "package an\n\nimport f \"fmt\"\n\nfunc F() { f.Print() }\n",
			[]string{"an/a.go:5: F: calls fmt.Print"}},
		{"dot import", "package an\n\nimport . \"fmt\"\n\nfunc F() { Println(); _ = Sprint() }\n",
			[]string{"an/a.go:5: F: calls fmt.Println"}},
		{"log and slog", "package an\n\nimport (\n\t\"log\"\n\t\"log/slog\"\n)\n\nfunc F() {\n\tlog.Printf(\"x\")\n\tslog.Info(\"x\")\n\t_ = slog.New(nil)\n}\n",
			[]string{"an/a.go:9: F: calls log.Printf", "an/a.go:10: F: calls log/slog.Info"}},
		{"a package named log", "package an\n\nimport \"example.com/m/log\"\n\nfunc F() { log.Printf(\"x\") }\n",
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := loadTree(module(map[string]string{"an/a.go": tc.src}))
			if err != nil {
				t.Fatal(err)
			}
			if got := strs(prints(tr, []string{"an"})); !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}

// TestPrintsWhere checks which files the rule covers: the analyzers' own
// non-test files and their subpackages, and not a package of its own name.
func TestPrintsWhere(t *testing.T) {
	prints1 := "package p\n\nimport \"fmt\"\n\nfunc F() { fmt.Println() }\n"
	fsys := module(map[string]string{
		"an/a.go":          prints1,
		"an/sub/b.go":      prints1,
		"an/a_test.go":     prints1,
		"anx/c.go":         prints1,
		"cli/d.go":         prints1,
		"own/e.go":         "package own\n\nfunc println(...any) {}\n",
		"own/f.go":         "package own\n\nfunc F() { println(1) }\n",
		"an/testdata/g.go": prints1,
	})
	tr, err := loadTree(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"an/a.go:5: F: calls fmt.Println", "an/sub/b.go:5: F: calls fmt.Println"}
	if got := strs(prints(tr, []string{"an", "own"})); !slices.Equal(got, want) {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
