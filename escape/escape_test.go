package escape

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
}

// wants returns the "// want:KIND" markers of a file by line.
func wants(t *testing.T, file string) map[int]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[int]string)
	for i, ln := range strings.Split(string(data), "\n") {
		if _, k, ok := strings.Cut(ln, "// want:"); ok {
			m[i+1] = strings.TrimSpace(k)
		}
	}
	return m
}

// checkAllocs checks a report on testdata/allocs against its markers.
func checkAllocs(t *testing.T, rep *Report, file string) {
	t.Helper()
	for line, want := range wants(t, "testdata/allocs/allocs.go") {
		var found *Site
		for i := range rep.Sites {
			s := &rep.Sites[i]
			if s.Line == line && sameFile(filepath.ToSlash(s.File), file) && s.Kind.String() == want {
				found = s
			}
		}
		if found == nil {
			t.Errorf("line %d: no %q decision", line, want)
			continue
		}
		if found.Kind.Heap() || found.Kind == LeakingParam {
			if len(found.Chain) == 0 || len(found.Reasons()) == 0 {
				t.Errorf("line %d: %s %s has no explanation", line, found.Kind, found.Expr)
			}
		}
		if found.Kind.Heap() && len(rep.At(file, line)) == 0 {
			t.Errorf("At(%s, %d) finds nothing", file, line)
		}
	}
}

func TestAnalyze(t *testing.T) {
	needGo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Analyze(ctx, ".", []string{"./testdata/allocs"})
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("testdata/allocs/allocs.go")
	if err != nil {
		t.Fatal(err)
	}
	checkAllocs(t, rep, abs)
	for _, s := range rep.Sites {
		if !filepath.IsAbs(s.File) || s.Package != "github.com/gcdoctor/gcdoctor/escape/testdata/allocs" {
			t.Errorf("site %s in package %q", s.Pos(), s.Package)
		}
	}
	// The same sites by module-relative and by package-relative name.
	w := wants(t, "testdata/allocs/allocs.go")
	for line, kind := range w {
		if kind == "does not escape" || kind == "leaking param" {
			continue
		}
		for _, name := range []string{"escape/testdata/allocs/allocs.go", "allocs/allocs.go", "./testdata/allocs/allocs.go"} {
			if len(rep.At(name, line)) == 0 {
				t.Errorf("At(%s, %d) finds nothing", name, line)
			}
		}
	}
	if got := rep.At("other/allocs.go", 7); len(got) != 0 {
		t.Errorf("At matched another directory: %v", got)
	}
	if got := rep.At("/elsewhere/testdata/allocs/allocs.go", 7); len(got) != 0 {
		t.Errorf("At matched another absolute path: %v", got)
	}
}

func TestAnalyzeErrors(t *testing.T) {
	needGo(t)
	_, err := Analyze(context.Background(), ".", []string{"./testdata/broken"})
	if err == nil || !strings.Contains(err.Error(), "undefined: undefinedName") {
		t.Errorf("broken package: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	time.Sleep(time.Millisecond)
	if _, err := Analyze(ctx, ".", []string{"./testdata/allocs"}); err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("expired context: %v", err)
	}
	if _, err := Analyze(context.Background(), ".", nil); err == nil {
		t.Error("no packages: no error")
	}
}

// TestAnalyzeStd runs the analysis on encoding/json, a big real package.
func TestAnalyzeStd(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles encoding/json")
	}
	needGo(t)
	rep, err := Analyze(context.Background(), ".", []string{"encoding/json"})
	if err != nil {
		t.Fatal(err)
	}
	heap := rep.Heap()
	chained := 0
	for _, s := range heap {
		if !strings.HasSuffix(s.File, ".go") || s.Line <= 0 || s.Package != "encoding/json" && !strings.Contains(s.File, "/encoding/json/") {
			t.Errorf("odd site %s in %q", s.Pos(), s.Package)
		}
		if len(s.Chain) > 0 {
			chained++
		}
	}
	t.Logf("encoding/json: %d decisions, %d heap, %d explained, %d other lines", len(rep.Sites), len(heap), chained, rep.Skipped)
	if len(heap) < 100 || chained < len(heap)/2 {
		t.Errorf("%d heap sites, %d explained", len(heap), chained)
	}
}

// TestParseFixtures parses saved -m=2 and -m output and compares a
// rendering with golden files.
func TestParseFixtures(t *testing.T) {
	for _, name := range []string{"allocs.m2.txt", "allocs.m1.txt"} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata/fixtures", name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rep, err := Parse(f, "/src/gcdoctor/escape")
			if err != nil {
				t.Fatal(err)
			}
			if name == "allocs.m2.txt" {
				checkAllocs(t, rep, "/src/gcdoctor/escape/testdata/allocs/allocs.go")
			}
			got := render(rep)
			golden := filepath.Join("testdata/fixtures", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if string(want) != got {
				t.Errorf("output differs from %s (run with -update to accept):\n%s", golden, got)
			}
		})
	}
}

func render(rep *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d sites, %d other lines\n", len(rep.Sites), rep.Skipped)
	for _, s := range rep.Sites {
		fmt.Fprintf(&b, "%s:%d:%d %s %q in %s [%s]\n", filepath.Base(s.File), s.Line, s.Column, s.Kind, s.Expr, s.Function, strings.Join(s.Reasons(), ", "))
		for _, st := range s.Chain {
			fmt.Fprintf(&b, "\t%s:%d:%d %s\n", filepath.Base(st.File), st.Line, st.Column, st.Text)
		}
	}
	return b.String()
}

func TestParseOdd(t *testing.T) {
	in := strings.Join([]string{
		"# example.com/p",
		"garbage",
		"p.go:3:4:   flow: orphan step",
		"C:/x/p.go:5:6: moved to heap: y",
		"p.go:7:2: x escapes to heap in F:",
		"p.go:7:2:   flow: ~r0 ← &x:",
		"p.go:7:2:     from &x (address-of) at p.go:8:9",
		"p.go:7:2:     from return &x (return) at p.go:8:2",
		"p.go:7:2: moved to heap: x",
		"p.go:9:10: make([]byte, n) escapes to heap in G:",
		"p.go:9:10:   flow: {heap} ← &{storage for make([]byte, n)}:",
		"p.go:9:10:     from make([]byte, n) (non-constant size) at p.go:9:10",
		"p.go:9:10: make([]byte, n) escapes to heap",
		"p.go:11:3: leaking param content: q",
		"p.go:12:3: q does not escape",
		"p.go:13:3: weird message",
		"p.go:x:3: moved to heap: z",
		"p.go:14:3: f(g(x)) (call (nested)) escapes to heap",
		"",
	}, "\n")
	rep, err := Parse(strings.NewReader(in), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		file string
		line int
		kind Kind
		expr string
		n    int
	}{
		{"C:/x/p.go", 5, MovedToHeap, "y", 0},
		{"p.go", 7, MovedToHeap, "x", 3},
		{"p.go", 9, NonConstantSize, "make([]byte, n)", 2},
		{"p.go", 11, LeakingParam, "q", 0},
		{"p.go", 12, DoesNotEscape, "q", 0},
		{"p.go", 14, EscapesToHeap, "f(g(x)) (call (nested))", 0},
	}
	if len(rep.Sites) != len(want) {
		t.Fatalf("%d sites, want %d: %+v", len(rep.Sites), len(want), rep.Sites)
	}
	for i, w := range want {
		s := rep.Sites[i]
		if s.File != w.file || s.Line != w.line || s.Kind != w.kind || s.Expr != w.expr || len(s.Chain) != w.n || s.Package != "example.com/p" {
			t.Errorf("site %d = %+v, want %+v", i, s, w)
		}
	}
	if r := rep.Sites[1].Reasons(); strings.Join(r, ",") != "address-of,return" {
		t.Errorf("reasons %v", r)
	}
	if st := rep.Sites[1].Chain[2]; st.Line != 8 || st.Column != 2 || st.Text != "from return &x (return)" {
		t.Errorf("step %+v", st)
	}
	if rep.Skipped != 4 {
		t.Errorf("skipped %d lines, want 4", rep.Skipped)
	}
}

func TestSameFileAcrossCheckouts(t *testing.T) {
	tests := []struct {
		have, want string
		same       bool
	}{
		{"/tmp/clean/heapprof/testdata/scenarios/bigbuf.go", "/work/main/heapprof/testdata/scenarios/bigbuf.go", true},
		{"/a/pkg/x.go", "/b/other/x.go", false},
		{"/a/pkg/x.go", "pkg/x.go", true},
		{"/a/pkg/x.go", "/a/pkg/x.go", true},
		{"/x.go", "/y/x.go", false},
	}
	for _, tt := range tests {
		if got := sameFile(tt.have, tt.want); got != tt.same {
			t.Errorf("sameFile(%q, %q) = %v, want %v", tt.have, tt.want, got, tt.same)
		}
	}
}
