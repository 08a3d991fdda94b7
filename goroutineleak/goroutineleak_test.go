package goroutineleak

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
	"github.com/gcdoctor/gcdoctor/report"
)

func readFile(t testing.TB, name string) *Profile {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Read(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRead reads the example's profiles, and refuses what is not one.
func TestRead(t *testing.T) {
	p := readFile(t, "problem.goroutineleak.pb.gz")
	if p.Total != 400 || len(p.Sites) != 1 {
		t.Fatalf("problem: %d goroutines at %d sites, want 400 at 1", p.Total, len(p.Sites))
	}
	s := p.Sites[0]
	want := Site{Start: Frame{"main.first.func1", s.Start.File, 34}, Creator: "main.first",
		Blocked: Frame{"main.first.func1", s.Blocked.File, 35}, Wait: "a channel send", Count: 400, Stacks: 1}
	if s != want || !strings.HasSuffix(s.Start.File, "problem/main.go") {
		t.Errorf("problem's site:\n got %+v\nwant %+v", s, want)
	}
	if p := readFile(t, "fixed.goroutineleak.pb.gz"); p.Total != 0 || len(p.Sites) != 0 {
		t.Errorf("fixed: %d goroutines at %d sites, want none", p.Total, len(p.Sites))
	}
	heap, err := os.ReadFile(filepath.Join("testdata", "problem.allocs.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, data, want string
	}{
		{"allocs.pb.gz", string(heap), "allocs.pb.gz: not a goroutine-leak profile (sample types alloc_objects/count"},
		{"junk.pb.gz", "\x1f\x8b\x08\x00junk", "junk.pb.gz: "},
		{"empty", "", "empty: "},
	} {
		_, err := Read(strings.NewReader(tt.data), tt.name)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Read(%s) error = %v, want one line starting %q", tt.name, err, tt.want)
		}
	}
}

// TestRule diagnoses a bundle as attach leaves it: the problem's leak
// fires with the site, the count and the heap under the goroutines'
// function; the fixed program's empty profile is quiet.
func TestRule(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // bundle file ← testdata file
		fires bool
		heap  bool // the heap the goroutines hold is known
	}{
		{"problem with its allocs profile", map[string]string{bundle.GoroutineLeakFile: "problem.goroutineleak.pb.gz", bundle.AllocsFile: "problem.allocs.pb.gz"}, true, true},
		{"problem alone", map[string]string{bundle.GoroutineLeakFile: "problem.goroutineleak.pb.gz"}, true, false},
		{"fixed", map[string]string{bundle.GoroutineLeakFile: "fixed.goroutineleak.pb.gz", bundle.AllocsFile: "problem.allocs.pb.gz"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for to, from := range tt.files {
				data, err := os.ReadFile(filepath.Join("testdata", from))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, to), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			set, err := evidence.LoadBundle(context.Background(), dir, evidence.Options{})
			if err != nil {
				t.Fatal(err)
			}
			d := diagnose.Diagnose(set.Input)
			var f *diagnose.Finding
			for i := range d.Findings {
				if d.Findings[i].ID == rule.ID {
					f = &d.Findings[i]
				}
			}
			if (f != nil) != tt.fires {
				t.Fatalf("%s fired: %v, want %v (%+v)", rule.ID, f != nil, tt.fires, d.Findings)
			}
			if f == nil {
				return
			}
			if len(f.Where) != 2 || f.Where[0].Line != 34 || f.Where[1].Line != 35 || !strings.Contains(f.Message, "400 goroutines leaked") {
				t.Errorf("finding: %s %+v", f.Message, f.Where)
			}
			var held float64
			for _, e := range f.Evidence {
				if e.Label == "in-use heap allocated under the function" {
					held = e.Value
				}
			}
			if known := held > 0; known != tt.heap || !tt.heap && !strings.Contains(f.Message, "not known") {
				t.Errorf("heap held %v MiB, want known %v: %s", held, tt.heap, f.Message)
			}
			var js bytes.Buffer
			if err := report.JSON(&js, d, "test"); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(js.String(), `"goroutine_leaks"`) || !strings.Contains(js.String(), `"blocked_line": 35`) {
				t.Errorf("the JSON report lacks the section:\n%s", js.String())
			}
		})
	}
}

// TestLoadFiles reads the profiles as files given on the command line: the
// leak profile is told from a heap profile by its content.
func TestLoadFiles(t *testing.T) {
	files := []string{filepath.Join("testdata", "problem.goroutineleak.pb.gz"), filepath.Join("testdata", "problem.allocs.pb.gz")}
	set, err := evidence.Load(context.Background(), files, evidence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := set.Input.Extension("goroutineleak").(*Profile); p == nil || p.Total != 400 || set.Input.Heap == nil {
		t.Fatalf("leak profile %+v, heap %v", p, set.Input.Heap != nil)
	}
	d := diagnose.Diagnose(set.Input)
	for _, f := range d.Findings {
		if f.ID == rule.ID && strings.Contains(f.Message, "under main.first.func1") && strings.Contains(f.Verify, "main.go:34") {
			return
		}
	}
	t.Errorf("no goroutine-leak finding with the heap held: %+v", d.Findings)
}

// FuzzRead holds Read to an error, never a panic, on any bytes.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"problem.goroutineleak.pb.gz", "fixed.goroutineleak.pb.gz", "problem.allocs.pb.gz"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(bytes.NewReader(data), "fuzz")
		if err == nil && p == nil {
			t.Fatal("no profile and no error")
		}
	})
}
