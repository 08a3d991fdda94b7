package diagnose

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/heapprof"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// lintHeap is the profile of testdata/heap's lint case: a string built
// with += (87% of the bytes, main.go:195), a regexp compiled per request
// (12.6%, main.go:296) and time.After in a loop (0.1%, main.go:303), named
// by import path as a -trimpath build records them.
func lintHeap(t *testing.T) *HeapEvidence { return heapEvidence(t, "lint") }

// TestRankLint weighs source-check findings by the profile's bytes at
// their lines, across the path forms of a checker (relative to the module,
// or another checkout) and of a profile (import paths, from -trimpath).
func TestRankLint(t *testing.T) {
	h := lintHeap(t)
	le := &LintEvidence{Patterns: []string{"./diagnose/testdata/heap"}, Findings: []LintFinding{
		{Rule: "appendprealloc", File: "diagnose/testdata/heap/main.go", Line: 155},                  // cold here
		{Rule: "timeafterloop", File: "heap/main.go", Line: 303},                                     // 0.1%
		{Rule: "stringconcatloop", File: "/src/other/diagnose/testdata/heap/main.go", Line: 195},     // 87%
		{Rule: "regexpcompile", File: "/home/me/gcdoctor/diagnose/testdata/heap/main.go", Line: 296}, // 12.6%
		{Rule: "sprintfconv", File: "trace/main.go", Line: 195},                                      // same name and line, another program
	}}
	got := rankLint(le, h)
	var order []string
	for _, f := range got {
		if !f.Weighed {
			t.Errorf("%s:%d not weighed", f.File, f.Line)
		}
		order = append(order, f.Rule)
	}
	want := "stringconcatloop regexpcompile timeafterloop appendprealloc sprintfconv"
	if strings.Join(order, " ") != want {
		t.Errorf("order %v, want %s", order, want)
	}
	if got[0].HeapRank != 1 || got[0].Share < 0.85 || got[0].Share > 0.9 {
		t.Errorf("main.go:195: rank %d share %.3f, want rank 1 and 87%%", got[0].HeapRank, got[0].Share)
	}
	if last := got[len(got)-1]; last.Bytes != 0 {
		t.Errorf("trace/main.go:195 charged %d bytes of heap/main.go's line", last.Bytes)
	}

	// Without a profile the checker's order stands and nothing is weighed.
	plain := rankLint(le, nil)
	if plain[0].Rule != "appendprealloc" || plain[0].Weighed {
		t.Errorf("without a profile: %+v", plain[0])
	}
}

// demoProfile reads the allocation profile of the demo server's bundle
// (internal/cli/testdata/demo-bundle), where newBuf() makes a 10 MiB
// buffer per request.
func demoProfile(t *testing.T) *heapprof.Profile {
	t.Helper()
	return profileIn(t, "../../internal/cli/testdata/demo-bundle/allocs.pb.gz")
}

// TestRankLintThrough weighs a finding at a call to a helper that
// allocates by what the helper allocated for it: in the demo server's
// profile (internal/cli/testdata/demo-bundle), newBuf's make at
// server.go:66 is the site, and the largebufalloc finding is at its call,
// server.go:80.
func TestRankLintThrough(t *testing.T) {
	p := demoProfile(t)
	le := &LintEvidence{Findings: []LintFinding{
		{Rule: "largebufalloc", File: "internal/demo/server.go", Line: 80},
		{Rule: "sprintfconv", File: "internal/demo/server.go", Line: 66},
		{Rule: "timeafterloop", File: "internal/demo/server.go", Line: 20},
	}}
	got := rankLint(le, &HeapEvidence{Profile: p})
	call, site, cold := got[0], got[1], got[2]
	if call.Line != 80 || !call.Through || call.HeapRank != 0 || call.Share < 0.99 {
		t.Errorf("the call to newBuf: %+v, want 99%% or more of the bytes, through the call", call)
	}
	if site.Line != 66 || site.Through || site.HeapRank != 1 || site.Bytes != call.Bytes {
		t.Errorf("newBuf's make: %+v, want the first site, with the call's bytes", site)
	}
	if cold.Bytes != 0 || cold.Through {
		t.Errorf("a line off every stack: %+v, want cold", cold)
	}
}

// TestLintHotThrough: a lint finding at the call to a helper that makes
// the buffer a heap rule reports (the demo server's newBuf) is folded
// into that rule's finding, not reported again as lint-hot.
func TestLintHotThrough(t *testing.T) {
	p := demoProfile(t)
	h := &HeapEvidence{Name: "allocs.pb.gz", Profile: p, Top: p.Top(heapprof.SiteOptions{N: 10})}
	le := &LintEvidence{Findings: []LintFinding{{Rule: "largebufalloc", File: "internal/demo/server.go", Line: 80,
		Message: "10240 KiB buffer allocated on every HTTP request by newBuf"}}}
	d := Diagnose(&Input{Heap: h, Lint: le})
	if _, ok := findingByID(d, ruleLintHot); ok {
		t.Errorf("a lint-hot finding beside %v", ids(d))
	}
	big, ok := findingByID(d, "heap-large-buffer")
	if !ok {
		t.Fatalf("no heap-large-buffer among %v", ids(d))
	}
	if !strings.Contains(big.Message, "gcdoctor lint flags the call at server.go:80: 10240 KiB buffer") {
		t.Errorf("largebufalloc not folded into heap-large-buffer: %q", big.Message)
	}
}

// TestLintHot checks, on what gcdoctor lint found in testdata/heap, that a
// hot lint line becomes a finding, a cold one does not, and a lint finding
// about a line a heap rule reports is folded into that rule's finding.
func TestLintHot(t *testing.T) {
	all := func(LintFinding) bool { return true }
	d := Diagnose(&Input{Heap: lintHeap(t), Lint: lintEvidence(t, all)})
	var hot []Finding
	for _, f := range d.Findings {
		if f.ID == ruleLintHot {
			hot = append(hot, f)
		}
	}
	if len(hot) != 1 || hot[0].Where[0].Line != 296 {
		t.Fatalf("lint-hot findings %+v, want one at main.go:296", hot)
	}
	if !strings.Contains(hot[0].Remedy, "--fix") || !strings.Contains(hot[0].Message, "[regexpcompile]") || !strings.Contains(hot[0].Message, "12.6%") {
		t.Errorf("lint-hot: %q / %q", hot[0].Message, hot[0].Remedy)
	}

	concat, ok := findingByID(d, "heap-string-concat")
	if !ok {
		t.Fatalf("no heap-string-concat among %v", ids(d))
	}
	if !strings.Contains(concat.Message, "gcdoctor lint flags the line too: string line is built with += in a loop") ||
		!strings.Contains(concat.Message, "[stringconcatloop].") || !strings.HasPrefix(concat.Remedy, "gcdoctor lint --fix") {
		t.Errorf("stringconcatloop not folded into heap-string-concat: %q / %q", concat.Message, concat.Remedy)
	}
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
		{"go1.26-scav.log", 0, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			req := &TuneRequest{Budget: tt.budget, BudgetSource: "--budget", Objective: pacer.CPU, Options: pacer.Options{GoMinor: 26}}
			d := Diagnose(&Input{Log: gctraceLog(t, "gctrace/"+tt.file), GoVersion: "go1.26", Tune: req})
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
			if !strings.Contains(tune.Message, tt.want) || !strings.Contains(tune.Verify, "Run the program under GOGC=") {
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

// TestCrossCheck compares the gctrace and the execution trace that one run
// of testdata/trace's assist case recorded, which must agree, and the same
// gctrace with the trace of another run on 1 P, which must be called out.
func TestCrossCheck(t *testing.T) {
	tests := []struct {
		trace string
		agree bool
	}{
		{"trace/assist.trace", true},
		{"trace/assist-1p.trace", false},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.trace), func(t *testing.T) {
			d := Diagnose(&Input{Log: gctraceLog(t, "trace/assist-run/gctrace.log"), Trace: traceEvidence(t, tt.trace)})
			if len(d.CrossChecks) != 2 {
				t.Fatalf("cross-checks %+v, want GOMAXPROCS and cycles", d.CrossChecks)
			}
			agree := true
			for _, c := range d.CrossChecks {
				t.Logf("%s: gctrace %s, trace %s: %v", c.What, c.GCTrace, c.Trace, c.Agree)
				agree = agree && c.Agree
			}
			f, fired := findingByID(d, "evidence-mismatch")
			if fired && (f.Remedy == "" || f.Verify == "" || len(f.Evidence) == 0) {
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
// the kind of evidence it rests on, quoted for a shell, and none when the
// evidence does not say how to collect it again: every command printed
// must run as printed.
func TestCheckCommand(t *testing.T) {
	server := func() *RunInfo {
		return &RunInfo{Command: []string{"./server", "-addr", ":8080", "it's"}, ExitKnown: true}
	}
	stopped := server()
	stopped.ExitCode = 130
	tests := []struct {
		name string
		in   func() *Input
		want map[string]string // finding ID → command
	}{
		{"bundle of a run", func() *Input {
			return &Input{Heap: heapEvidence(t, "hotsite"), Trace: traceEvidence(t, "trace/stw.trace"), Bundle: "my bundle.tar.gz", Run: server()}
		}, map[string]string{
			"alloc-churn":    `gcdoctor run --out 'my bundle-after' -- ./server -addr :8080 'it'\''s' && gcdoctor diff 'my bundle.tar.gz' 'my bundle-after'`,
			"trace-stw-long": "",
			"heap-hot-site":  "",
		}},
		{"a run without a bundle, gcdoctor elsewhere", func() *Input {
			return &Input{Run: server(), Recheck: Recheck{Tool: "go run ./cmd/gcdoctor"}}
		}, map[string]string{"alloc-churn": `go run ./cmd/gcdoctor run -- ./server -addr :8080 'it'\''s'`}},
		{"a server stopped by Ctrl-C", func() *Input {
			return &Input{Run: stopped, Bundle: "b"}
		}, map[string]string{"alloc-churn": `gcdoctor run --out b-after -- ./server -addr :8080 'it'\''s'; gcdoctor diff b b-after  # load it as before, then stop it with Ctrl-C`}},
		{"attached to a URL", func() *Input {
			return &Input{Heap: heapEvidence(t, "hotsite"), Trace: traceEvidence(t, "trace/stw.trace"), Bundle: "gcdoctor-attach-1",
				Recheck: Recheck{URL: "localhost:6060", Tool: "/opt/gcd"}}
		}, map[string]string{
			"trace-stw-long": "/opt/gcd attach --seconds 5 localhost:6060",
			"heap-hot-site":  "/opt/gcd attach --seconds 0 localhost:6060",
		}},
		{"the caller's own commands", func() *Input {
			return &Input{Heap: heapEvidence(t, "hotsite"), Trace: traceEvidence(t, "trace/stw.trace"), Bundle: "d/problem", Run: server(),
				Recheck: Recheck{GCTrace: "gcdoctor diff d/problem d/fixed", Heap: "gcdoctor heap d/fixed/allocs.pb.gz", Trace: "gcdoctor trace d/fixed/trace.out"}}
		}, map[string]string{
			"alloc-churn":    "gcdoctor diff d/problem d/fixed",
			"trace-stw-long": "gcdoctor trace d/fixed/trace.out",
			"heap-hot-site":  "gcdoctor heap d/fixed/allocs.pb.gz",
		}},
		{"a log of an unknown program", func() *Input { return &Input{} }, map[string]string{"alloc-churn": ""}},
		{"a run with GC settings", func() *Input {
			r := server()
			r.GOGC, r.GOMAXPROCS = "50", "2"
			return &Input{Run: r}
		}, map[string]string{"alloc-churn": `GOGC=50 GOMAXPROCS=2 gcdoctor run -- ./server -addr :8080 'it'\''s'`}},
		{"the current directory's bundle", func() *Input {
			return &Input{Run: server(), Bundle: "."}
		}, map[string]string{"alloc-churn": `gcdoctor run --out gcdoctor-after -- ./server -addr :8080 'it'\''s' && gcdoctor diff . gcdoctor-after`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in()
			in.Log = gctraceLog(t, "gctrace/go1.26-alloc.log")
			d := Diagnose(in)
			for id, w := range tt.want {
				f, ok := findingByID(d, id)
				if !ok {
					t.Errorf("no %s among %v", id, ids(d))
					continue
				}
				if f.Command != w {
					t.Errorf("%s: command %q, want %q", id, f.Command, w)
				}
			}
		})
	}
}

// TestTuneCommand checks the tuning finding's command: a sweep of a
// program that ran to its end, the caller's rerun with the setting in its
// environment, and one run under the new setting and the same load for a
// server that was stopped by hand.
func TestTuneCommand(t *testing.T) {
	run := func(code int) *RunInfo {
		return &RunInfo{Command: []string{"./job", "-n", "3"}, ExitKnown: true, ExitCode: code}
	}
	tests := []struct {
		name string
		run  *RunInfo
		rc   Recheck
		want string
	}{
		{"a job", run(0), Recheck{}, "gcdoctor sweep --gogc 100,200 --count 5 -- ./job -n 3"},
		{"a failed job", run(1), Recheck{Tool: "./gcdoctor"}, "./gcdoctor sweep --gogc 100,200 --count 5 -- ./job -n 3"},
		{"a stopped server", run(143), Recheck{}, "GOGC=200 gcdoctor run -- ./job -n 3  # load it as before, then stop it with Ctrl-C"},
		{"a stopped server with its own GOGC", func() *RunInfo { r := run(143); r.GOGC, r.GOMEMLIMIT = "50", "1GiB"; return r }(), Recheck{},
			"GOGC=200 GOMEMLIMIT=1GiB gcdoctor run -- ./job -n 3  # load it as before, then stop it with Ctrl-C"},
		{"no program", nil, Recheck{}, ""},
		{"the caller's rerun", run(0), Recheck{Rerun: "gcdoctor demo --out x"}, "GOGC=200 gcdoctor demo --out x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &TuneRequest{Objective: pacer.CPU, Options: pacer.Options{GoMinor: 26}}
			d := Diagnose(&Input{Log: gctraceLog(t, "gctrace/gofmt-l-goroot-src.gctrace.log"), GoVersion: "go1.26", Tune: req, Run: tt.run, Recheck: tt.rc})
			f, ok := findingByID(d, "tune-gc")
			if !ok {
				t.Fatalf("no tune-gc among %v", ids(d))
			}
			if f.Command != tt.want {
				t.Errorf("command %q, want %q", f.Command, tt.want)
			}
		})
	}
}
