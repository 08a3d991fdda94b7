package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/heapprof"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// jsonBenchHeap is the allocs profile of encoding/json's own benchmarks
// (heapprof/testdata/profiles): a real program's profile, whose sites are
// in /usr/local/go/src/encoding/json.
func jsonBenchHeap(t *testing.T) *HeapEvidence {
	t.Helper()
	f, err := os.Open("../heapprof/testdata/profiles/json-bench.pprof")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := heapprof.Read(f, "json-bench.pprof")
	if err != nil {
		t.Fatal(err)
	}
	// The benchmark's code is all standard library: count it as the user's.
	user := func(string) bool { return true }
	return &HeapEvidence{Name: "json-bench.pprof", Profile: p, Top: p.Top(heapprof.SiteOptions{N: 10, User: user})}
}

// TestRankLint weighs source-check findings by the profile's bytes at
// their lines, across the path forms of a checker (relative to the module,
// or another checkout) and of a profile (absolute build paths).
func TestRankLint(t *testing.T) {
	h := jsonBenchHeap(t)
	le := &LintEvidence{Patterns: []string{"encoding/json"}, Findings: []LintFinding{
		{Rule: "timeafterloop", File: "net/http/server.go", Line: 100},                    // cold
		{Rule: "appendprealloc", File: "encoding/json/encode.go", Line: 1225},             // 7.9%
		{Rule: "stringconcatloop", File: "/src/other/encoding/json/encode.go", Line: 213}, // 14.0%
		{Rule: "mapprealloc", File: "json/decode.go", Line: 106},                          // 13.0%
		{Rule: "sprintfconv", File: "encoding/xml/encode.go", Line: 213},                  // same name and line, another package
	}}
	got := rankLint(le, h)
	var order []string
	for _, f := range got {
		if !f.Weighed {
			t.Errorf("%s:%d not weighed", f.File, f.Line)
		}
		order = append(order, f.Rule)
	}
	want := "stringconcatloop mapprealloc appendprealloc timeafterloop sprintfconv"
	if strings.Join(order, " ") != want {
		t.Errorf("order %v, want %s", order, want)
	}
	if got[0].HeapRank != 1 || got[0].Share < 0.13 || got[0].Share > 0.15 {
		t.Errorf("encode.go:213: rank %d share %.3f, want rank 1 and 14%%", got[0].HeapRank, got[0].Share)
	}
	if last := got[len(got)-1]; last.Bytes != 0 {
		t.Errorf("encoding/xml/encode.go:213 charged %d bytes of encoding/json's line", last.Bytes)
	}

	// Without a profile the checker's order stands and nothing is weighed.
	plain := rankLint(le, nil)
	if plain[0].Rule != "timeafterloop" || plain[0].Weighed {
		t.Errorf("without a profile: %+v", plain[0])
	}
}

// TestLintHot checks that hot lint lines become findings, cold ones do not,
// and that a lint-hot finding is folded into another about the same line.
func TestLintHot(t *testing.T) {
	h := jsonBenchHeap(t)
	le := &LintEvidence{Findings: []LintFinding{
		{Rule: "appendprealloc", Title: "t", File: "encoding/json/encode.go", Line: 1225, Message: "append to s in a loop of known length", Fixable: true},
		{Rule: "timeafterloop", Title: "t", File: "encoding/json/encode.go", Line: 1, Message: "time.After in a loop"},
	}}
	d := Diagnose(&Input{Heap: h, Lint: le})
	var hot []Finding
	for _, f := range d.Findings {
		if f.ID == ruleLintHot {
			hot = append(hot, f)
		}
	}
	if len(hot) != 1 || hot[0].Where[0].Line != 1225 {
		t.Fatalf("lint-hot findings %+v, want one at encode.go:1225", hot)
	}
	if !strings.Contains(hot[0].Remedy, "--fix") || !strings.Contains(hot[0].Message, "7.9") {
		t.Errorf("lint-hot: %q / %q", hot[0].Message, hot[0].Remedy)
	}

	other := Finding{ID: "heap-slice-growth", Message: "encode.go:1225 allocates.", Remedy: "Preallocate.",
		Where: []Location{{File: "/usr/local/go/src/encoding/json/encode.go", Line: 1225}}}
	folded := foldLint([]Finding{other, hot[0]})
	if len(folded) != 1 {
		t.Fatalf("not folded: %d findings", len(folded))
	}
	if !strings.Contains(folded[0].Message, "gcdoctor lint flags the line too: append to s in a loop of known length [appendprealloc].") ||
		!strings.HasPrefix(folded[0].Remedy, "gcdoctor lint --fix") {
		t.Errorf("folded finding: %q / %q", folded[0].Message, folded[0].Remedy)
	}
}

func parseKeep(t *testing.T, name string) *gctrace.Log {
	t.Helper()
	f, err := os.Open(filepath.Join("../gctrace/testdata/corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := gctrace.Parse(f, name, gctrace.Options{KeepCycles: true})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestTuneAdvice checks the pacer's advice on real logs: given after the
// code fixes, with a recommendation when a budget is known, and silent when
// GC costs little.
func TestTuneAdvice(t *testing.T) {
	tests := []struct {
		file   string
		budget int64
		fires  bool
		want   string
	}{
		// gofmt -l over GOROOT/src: GC CPU well over 5%, a small heap.
		{"gofmt-l-goroot-src.gctrace.log", 0, true, "GOGC=200"},
		{"gofmt-l-goroot-src.gctrace.log", 1 << 30, true, "GOMEMLIMIT="},
		// A go1.26 program that mostly returns memory to the OS: GC is
		// cheap (about 1% of the CPU).
		{"../real/go1.26-scav.log", 0, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			req := &TuneRequest{Budget: tt.budget, BudgetSource: "--budget", Objective: pacer.CPU, Options: pacer.Options{GoMinor: 26}}
			d := Diagnose(&Input{Log: parseKeep(t, tt.file), GoVersion: "go1.26", Tune: req})
			if d.Tuning == nil || d.Tuning.Model == nil {
				t.Fatalf("no model: %+v", d.Tuning)
			}
			var tune *Finding
			for i := range d.Findings {
				if d.Findings[i].ID == "tune-gc" {
					tune = &d.Findings[i]
				}
			}
			if (tune != nil) != tt.fires {
				t.Fatalf("tune-gc fired %v, want %v (baseline GC CPU %.1f%%)", tune != nil, tt.fires, d.Tuning.Baseline.GCCPUFraction.Value*100)
			}
			if tune == nil {
				return
			}
			if !strings.Contains(tune.Message, tt.want) || !strings.Contains(tune.Verify, "gcdoctor sweep --gogc 100,") {
				t.Errorf("tune-gc: %q / %q", tune.Message, tune.Verify)
			}
			// Tuning comes after every code fix and every warning.
			for _, a := range d.Actions(5) {
				if a.ID == "tune-gc" {
					break
				}
				if a.Severity < Warning && a.rank > tune.rank {
					t.Errorf("%s listed before tune-gc", a.ID)
				}
			}
		})
	}
	// A log of one cycle gives no model, and says why.
	one := &gctrace.Log{}
	if tu := tune(one, &TuneRequest{}); tu != nil {
		t.Errorf("tuning of an empty log: %+v", tu)
	}
}

func analyzeTrace(t *testing.T, path string) *TraceEvidence {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := exectrace.Analyze(f, exectrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &TraceEvidence{Name: filepath.Base(path), Result: res}
}

func parseKeepPath(t *testing.T, path string) *gctrace.Log {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := gctrace.Parse(f, filepath.Base(path), gctrace.Options{KeepCycles: true})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestCrossCheck compares the gctrace and the execution trace of the demo
// server's bundle, which come from one process, and the same gctrace with a
// trace of another program, which must be called out.
func TestCrossCheck(t *testing.T) {
	const demo = "../internal/cli/testdata/demo-bundle/"
	log := parseKeepPath(t, demo+"gctrace.log")
	tests := []struct {
		trace string
		agree bool
	}{
		{demo + "trace.out", true},
		{"../exectrace/testdata/small.trace", false},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.trace), func(t *testing.T) {
			d := Diagnose(&Input{Log: log, Trace: analyzeTrace(t, tt.trace)})
			if len(d.CrossChecks) != 2 {
				t.Fatalf("cross-checks %+v, want GOMAXPROCS and cycles", d.CrossChecks)
			}
			agree := true
			for _, c := range d.CrossChecks {
				t.Logf("%s: gctrace %s, trace %s: %v", c.What, c.GCTrace, c.Trace, c.Agree)
				agree = agree && c.Agree
			}
			_, fired := findingByID(d, "evidence-mismatch")
			if f, ok := findingByID(d, "evidence-mismatch"); ok && (f.Remedy == "" || f.Verify == "" || len(f.Evidence) == 0) {
				t.Errorf("incomplete finding %+v", f)
			}
			if agree != tt.agree || fired == tt.agree {
				t.Errorf("agree %v and evidence-mismatch %v, want agreement %v", agree, fired, tt.agree)
			}
		})
	}
}

func findingByID(d *Diagnosis, id string) (Finding, bool) {
	for _, f := range d.Findings {
		if f.ID == id {
			return f, true
		}
	}
	return Finding{}, false
}

// TestCheckCommand gives each finding a command that checks its fix, of
// the kind of evidence it rests on, quoted for a shell.
func TestCheckCommand(t *testing.T) {
	const demo = "../internal/cli/testdata/demo-bundle/"
	h := jsonBenchHeap(t)
	in := &Input{Log: parseKeepPath(t, demo+"gctrace.log"), Heap: h, Trace: analyzeTrace(t, demo+"trace.out"), Bundle: "my bundle",
		Run: &RunInfo{Command: []string{"./server", "-addr", ":8080", "it's"}}}
	d := Diagnose(in)
	want := map[string]string{
		"alloc-churn":       `gcdoctor run --out after -- ./server -addr :8080 'it'\''s' && gcdoctor diff 'my bundle' after`,
		"trace-stw-long":    "gcdoctor trace trace-after.out",
		"heap-hot-site":     "gcdoctor heap allocs-after.pb.gz",
		"evidence-mismatch": "",
	}
	seen := 0
	for _, f := range d.Findings {
		w, ok := want[f.ID]
		if !ok || w == "" {
			continue
		}
		seen++
		if f.Command != w {
			t.Errorf("%s: command %q, want %q", f.ID, f.Command, w)
		}
	}
	if seen == 0 {
		t.Fatalf("none of %v among the findings %v", want, ids(d))
	}
}
