package diagnose

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/heapprof"
	"github.com/gcdoctor/gcdoctor/live"

	"github.com/gcdoctor/gcdoctor/pacer"
)

// ruleCase is one input a rule is judged on: real evidence from testdata/
// on which the rule must fire, or a near miss (just under a threshold, or
// the fixed version of the program) on which it must stay quiet.
type ruleCase struct {
	rule  string
	input string // what the evidence is, for the subtest's name
	in    func(t *testing.T) *Input
	fires bool
	// For a firing case: the finding's severity, and its evidence labelled
	// label must lie in [lo, hi].
	sev    Severity
	label  string
	lo, hi float64
}

func fires(rule, input string, in func(*testing.T) *Input, sev Severity, label string, lo, hi float64) ruleCase {
	return ruleCase{rule: rule, input: input, in: in, fires: true, sev: sev, label: label, lo: lo, hi: hi}
}

func quiet(rule, input string, in func(*testing.T) *Input) ruleCase {
	return ruleCase{rule: rule, input: input, in: in}
}

// logIn is a gctrace log of testdata/ and the Go version of the program
// that printed it ("" when the log does not say).
func logIn(path, goVersion string) func(*testing.T) *Input {
	return func(t *testing.T) *Input { return &Input{Log: gctraceLog(t, path), GoVersion: goVersion} }
}

// tuneIn is a gctrace log with tuning advice asked for, without a budget.
func tuneIn(path string) func(*testing.T) *Input {
	return func(t *testing.T) *Input {
		return &Input{Log: gctraceLog(t, path), GoVersion: "go1.26",
			Tune: &TuneRequest{Objective: pacer.CPU, Options: pacer.Options{GoMinor: 26}}}
	}
}

// heapIn is an allocation profile of testdata/heap with its source and
// escape analysis.
func heapIn(name string) func(*testing.T) *Input {
	return func(t *testing.T) *Input { return &Input{Heap: heapEvidence(t, name)} }
}

// withLog adds a gctrace log of testdata/ to an input, as the run beside
// its profile.
func withLog(in func(*testing.T) *Input, path string) func(*testing.T) *Input {
	return func(t *testing.T) *Input {
		x := in(t)
		x.Log = gctraceLog(t, path)
		return x
	}
}

// peakIn is the run of testdata/peak/NAME: its gctrace and the heap
// profile the program wrote at its peak.
func peakIn(name string) func(*testing.T) *Input {
	return func(t *testing.T) *Input {
		path := "peak/" + name + ".pb.gz"
		p := profileIn(t, path)
		h := &HeapEvidence{Name: path, Profile: p, Top: p.Top(heapprof.SiteOptions{N: 10}),
			Inuse: p.Top(heapprof.SiteOptions{Sort: heapprof.ByInuseSpace, N: 3})}
		return &Input{Log: gctraceLog(t, "peak/"+name+".gctrace.log"), Heap: h}
	}
}

// lintIn is the lint profile of testdata/heap with the source checks'
// findings of the given rules.
func lintIn(checks ...string) func(*testing.T) *Input {
	return func(t *testing.T) *Input {
		keep := func(f LintFinding) bool {
			for _, c := range checks {
				if f.Rule == c {
					return true
				}
			}
			return false
		}
		return &Input{Heap: heapEvidence(t, "lint"), Lint: lintEvidence(t, keep)}
	}
}

// traceIn is an execution trace of testdata/.
func traceIn(path string) func(*testing.T) *Input {
	return func(t *testing.T) *Input { return &Input{Trace: traceEvidence(t, path)} }
}

// runIn is a bundle of gcdoctor run in testdata/, with the trace at
// tracePath when it is not "".
func runIn(dir, tracePath string) func(*testing.T) *Input {
	return func(t *testing.T) *Input {
		in := runInput(t, dir)
		if tracePath != "" {
			in.Trace = traceEvidence(t, tracePath)
		}
		return in
	}
}

// tunedRunIn is a bundle of gcdoctor run in testdata/ with tuning advice
// asked for, as gcdoctor doctor asks, for a budget of budget bytes (0 for
// none).
func tunedRunIn(dir string, budget int64) func(*testing.T) *Input {
	return func(t *testing.T) *Input {
		in := runInput(t, dir)
		in.Tune = &TuneRequest{Objective: pacer.CPU, Budget: budget}
		if budget > 0 {
			in.Tune.BudgetSource = "--budget"
		}
		return in
	}
}

// liveIn is what testdata/live/NAME stores of a running program's own GC
// figures (see capture.sh there).
func liveIn(name string) func(*testing.T) *Input {
	return func(t *testing.T) *Input {
		dir := filepath.Join("testdata", "live", name)
		start, end, during, notes, err := live.Load(func(file string) ([]byte, error) {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return data, err
		})
		if err != nil || len(notes) > 0 {
			t.Fatalf("%s: %v %v", dir, err, notes)
		}
		k, err := live.Between(start, end, during...)
		if err != nil {
			t.Fatal(err)
		}
		return &Input{Live: &LiveEvidence{Name: dir, KPIs: k}}
	}
}

// ruleCases holds every rule's cases. TestRuleCases fails when a rule of
// Rules() has no firing case or no near miss here.
var ruleCases = []ruleCase{
	fires("alloc-churn", "go1.26 alloc, heap turns over 50 times a second", logIn("gctrace/go1.26-alloc.log", "go1.26.8"), Warning, "heap turnover", 45, 55),
	quiet("alloc-churn", "go1.26 scav, turns over 9.7 times a second", logIn("gctrace/go1.26-scav.log", "go1.26.8")),
	fires("alloc-churn", "a running program turning its heap over 22 times a second", liveIn("churn"), Info, "heap turnover", 15, 30),
	quiet("alloc-churn", "a running program at the minimum heap", liveIn("minheap")),
	quiet("alloc-churn", "a healthy running program", liveIn("healthy")),

	fires("assist-heavy", "seed002, assists 30.4% of marking at 18% GC CPU", logIn("gctrace/seed002-go110-4P.log", "go1.10"), Warning, "assist share of mark CPU", 30, 31),
	fires("assist-heavy", "cockroach go19, assists half of marking at 3% GC CPU", logIn("gctrace/05-go14812-cockroach-go19-8P.log", "go1.9"), Info, "assist share of mark CPU", 49, 51),
	quiet("assist-heavy", "go1.13 alloc, assists 29.7% of marking", logIn("gctrace/go1.13-alloc.log", "go1.13")),

	fires("evidence-mismatch", "assist run with a 1 P trace of another run", runIn("trace/assist-run", "trace/assist-1p.trace"), Warning, "GOMAXPROCS, trace", 1, 1),
	quiet("evidence-mismatch", "assist run with its own trace", runIn("trace/assist-run", "trace/assist.trace")),
	quiet("evidence-mismatch", "a server quiet after two cycles at start, traced while quiet", runIn("trace/quiet-run", "trace/quiet.trace")),

	fires("forced-gc", "go1.26 scav, 11 of 48 cycles forced", logIn("gctrace/go1.26-scav.log", "go1.26.8"), Warning, "forced cycles", 11, 11),
	fires("forced-gc", "go1.26 alloc, 3 of 57 cycles forced", logIn("gctrace/go1.26-alloc.log", "go1.26.8"), Info, "forced cycles", 3, 3),
	quiet("forced-gc", "go13392, only the runtime's periodic GC", logIn("gctrace/04-go13392-pre15-gcforced-scvg-8P.log", "")),
	quiet("forced-gc", "one debug.FreeOSMemory after a 256 MiB peak", runIn("rss/held-fix", "")),

	fires("gc-cpu-high", "seed002 at 18% GC CPU", logIn("gctrace/seed002-go110-4P.log", "go1.10"), Warning, "GC CPU", 17, 19),
	fires("gc-cpu-high", "death spiral at 35% GC CPU", logIn("gctrace/15-go58106-gomemlimit-death-spiral-3P.log", "go1.19.5"), Critical, "GC CPU", 34, 36),
	fires("gc-cpu-high", "go build, the compiler of runtime at 11% GC CPU", runIn("host/gobuild", ""), Warning, "GC CPU", 10.5, 12),
	quiet("gc-cpu-high", "go1.26 alloc at 9.1% GC CPU", logIn("gctrace/go1.26-alloc.log", "go1.26.8")),
	fires("gc-cpu-high", "a running program at GOGC=25, 19% GC CPU by runtime/metrics", liveIn("gccpu"), Warning, "GC CPU", 12, 25),
	fires("gc-cpu-high", "a running program at its memory limit, 41% GC CPU", liveIn("spiral"), Critical, "GC CPU", 30, 50),
	quiet("gc-cpu-high", "a running program turning its heap over fast at 4% GC CPU", liveIn("churn")),

	fires("gogc-headroom", "GOGC=1000, a peak heap 11× the live heap", runIn("headroom/gogc1000", ""), Info, "above 2 × live", 140, 160),
	fires("gogc-headroom", "GOGC=1000 with the pacer model", tunedRunIn("headroom/gogc1000", 0), Info, "GC CPU at GOGC=100 (model)", 2, 10),
	fires("gogc-headroom", "GOGC=1000, a log alone", logIn("headroom/gogc1000/gctrace.log", "go1.26.8"), Info, "peak heap", 180, 190),
	fires("gogc-headroom", "GOGC=800, start-up cycles with nothing live", logIn("headroom/cache-gogc800/gctrace.log", "go1.26.8"), Info, "median live heap", 105, 115),
	fires("gogc-headroom", "GOGC=200 within a 64 MiB budget", tunedRunIn("headroom/gogc200", 64<<20), Warning, "share of the budget", 80, 110),
	quiet("gogc-headroom", "GOGC=200, a peak heap 3× the live heap", runIn("headroom/gogc200", "")),
	quiet("gogc-headroom", "GOGC=1000 with GOMEMLIMIT=64MiB", runIn("headroom/gogc1000-limit", "")),

	fires("gc-min-heap", "every cycle at 4 MB, 12 a second", logIn("minheap/fast.log", "go1.26.8"), Info, "GC cycles", 10, 15),
	quiet("gc-min-heap", "every cycle at 4 MB, 3 a second", logIn("minheap/slow.log", "go1.26.8")),
	fires("gc-min-heap", "a running program at the 16 MB minimum of GOGC=400, 8 cycles a second", liveIn("minheap"), Info, "GC cycles", 5, 15),
	quiet("gc-min-heap", "a running program with 8 MB live, 29 cycles a second", liveIn("churn")),

	fires("goroutine-explosion", "a goroutine per item", traceIn("trace/explosion.trace"), Warning, "peak alive", 500, 700),
	quiet("goroutine-explosion", "goroutines in batches of 8", traceIn("trace/explosion-fix.trace")),
	fires("goroutine-explosion", "a goroutine per item of a few time slices, living through the trace", traceIn("trace/slices.trace"), Warning, "peak alive", 128, 128),
	fires("goroutine-explosion", "a goroutine per item beside CPU hogs, living through the trace", runIn("host/slices-hogs", "host/slices-hogs/trace.out"), Warning, "peak alive", 128, 128),
	quiet("goroutine-explosion", "the same items on 2 workers", traceIn("trace/slices-fix.trace")),
	quiet("goroutine-explosion", "64 CPU-bound workers on 2 P", traceIn("trace/starved.trace")),

	fires("heap-boxing", "a struct put in an any", heapIn("boxing"), Warning, "average size", 24, 24),
	quiet("heap-boxing", "the struct kept concrete", heapIn("boxing-fix")),

	fires("heap-conversion", "string(b) per request", heapIn("conversion"), Warning, "average size", 64, 64),
	quiet("heap-conversion", "the bytes written as they are", heapIn("conversion-fix")),

	fires("heap-fmt", "fmt.Sprintf per request", heapIn("fmt"), Warning, "allocated", 2, 3),
	quiet("heap-fmt", "strconv.AppendInt into a reused buffer", heapIn("fmt-fix")),

	fires("heap-hot-site", "a node per request", heapIn("hotsite"), Warning, "share of allocated bytes", 99, 100),
	quiet("heap-hot-site", "the node line at 17% of the bytes", heapIn("hotsite-fix")),

	fires("peak-heap-site", "a sheet built in memory", peakIn("xlsx-problem"), Warning, "held by the site", 100, 110),
	quiet("peak-heap-site", "the sheet streamed", peakIn("xlsx-fixed")),

	fires("heap-io-copy", "io.Copy per request", heapIn("iocopy"), Warning, "allocated", 7.5, 8.5),
	quiet("heap-io-copy", "io.CopyBuffer with a pooled buffer", heapIn("iocopy-fix")),

	fires("heap-large-buffer", "a 256 KiB buffer per request", heapIn("largebuf"), Warning, "average size", 200, 256),
	quiet("heap-large-buffer", "the buffer from a sync.Pool", heapIn("largebuf-fix")),
	fires("heap-large-buffer", "the buffers beside a run whose goals are small", withLog(heapIn("largebuf"), "gctrace/go1.26-alloc-first.log"), Warning, "average size", 200, 256),
	quiet("heap-large-buffer", "the buffers beside a run whose goals are far larger than they add up to", withLog(heapIn("largebuf"), "gctrace/07-go19393-huge-heap-22GB-48P.log")),

	fires("heap-large-value", "a 100 KiB frame per call", heapIn("largevalue"), Warning, "average size", 95, 101),
	quiet("heap-large-value", "one frame kept", heapIn("largevalue-fix")),

	fires("heap-map-growth", "a map grown entry by entry", heapIn("map"), Warning, "allocated", 6.5, 7.5),
	quiet("heap-map-growth", "the map made with a size hint", heapIn("map-fix")),

	fires("heap-overshoot", "gofmt, 6 cycles 10% or more over the goal", logIn("gctrace/gofmt-l-goroot-src.gctrace.log", "go1.26"), Warning, "largest overshoot", 28, 29),
	quiet("heap-overshoot", "go1.26 alloc, 2 cycles 10% or more over the goal", logIn("gctrace/go1.26-alloc.log", "go1.26.8")),

	fires("heap-slice-growth", "a slice grown by append", heapIn("append"), Warning, "allocated", 4.5, 5),
	quiet("heap-slice-growth", "the slice preallocated", heapIn("append-fix")),

	fires("heap-string-concat", "a line built with +=", heapIn("concat"), Warning, "allocated", 24, 25),
	quiet("heap-string-concat", "a strings.Builder", heapIn("concat-fix")),

	fires("idle-heap-held", "go44554, 204 MB live, a cycle a minute", logIn("gctrace/14-go44554-timestamp-prefixed-8P.log", ""), Info, "live heap", 204, 204),
	quiet("idle-heap-held", "go1.26 idle, 23 MB live", logIn("gctrace/go1.26-idle.log", "go1.26.8")),

	fires("lint-hot", "regexp compiled per request, 12.6% of the bytes", lintIn("regexpcompile", "stringconcatloop", "timeafterloop"), Info, "share of allocated bytes", 12, 13),
	quiet("lint-hot", "time.After in a loop, 0.1% of the bytes", lintIn("timeafterloop")),

	fires("live-heap-growth", "seed002, 225 to 351 MB live", logIn("gctrace/seed002-go110-4P.log", "go1.10"), Warning, "live heap at end", 351, 351),
	quiet("live-heap-growth", "a batch job grows to 418 MB live and exits 0", runIn("host/batch", "")),
	quiet("live-heap-growth", "go build: the compiler of runtime grows to 142 MB live", runIn("host/gobuild", "")),
	quiet("live-heap-growth", "a build's log: compilers grow to 244 MB live", logIn("gctrace/go-build-cmd-go.gctrace.log", "go1.26")),
	quiet("live-heap-growth", "etcd, live heap up 5 MB in 270 s", logIn("gctrace/10-etcd8472-journald-scvg-2P.log", "")),

	fires("memlimit-death-spiral", "go58106, GOGC=off at the memory limit", logIn("gctrace/15-go58106-gomemlimit-death-spiral-3P.log", "go1.19.5"), Critical, "wall time marking", 95, 96),
	quiet("memlimit-death-spiral", "go19393, marking half the time far under the goal", logIn("gctrace/07-go19393-huge-heap-22GB-48P.log", "go1.8")),
	quiet("memlimit-death-spiral", "assist run at the goal with GOGC=25 and no limit", runIn("trace/assist-run", "")),
	fires("memlimit-death-spiral", "a running program pinned at GOMEMLIMIT=48MiB with GOGC=off", liveIn("spiral"), Critical, "live heap", 50, 65),
	quiet("memlimit-death-spiral", "a running program at GOGC=25, its live heap 80% of the goal", liveIn("gccpu")),

	fires("rss-held-idle", "256 MiB dropped, then idle", runIn("rss/held", ""), Info, "RSS while idle (median)", 250, 270),
	quiet("rss-held-idle", "debug.FreeOSMemory after the drop", runIn("rss/held-fix", "")),
	fires("rss-held-idle", "256 MiB dropped, then idle, with the CPU it used", runIn("rss/held-cpu", ""), Info, "CPU while idle (of one CPU)", 0, 2),
	quiet("rss-held-idle", "the data kept and worked on for 2 s without a cycle", runIn("rss/busy", "")),

	fires("rss-over-heap", "192 MiB mapped outside the heap", runIn("rss/offheap", ""), Warning, "peak RSS", 200, 215),
	quiet("rss-over-heap", "48 MiB mapped outside the heap", runIn("rss/offheap-48", "")),
	quiet("rss-over-heap", "256 MiB on the heap after the last cycle", runIn("rss/held", "")),
	fires("rss-over-heap", "a running program with 200 MiB mapped outside the heap", liveIn("rss"), Warning, "RSS", 240, 270),
	quiet("rss-over-heap", "a healthy running program", liveIn("healthy")),

	fires("stw-long", "etcd, 18 ms mark termination", logIn("gctrace/10-etcd8472-journald-scvg-2P.log", ""), Warning, "longest pause", 18, 18),
	fires("stw-long", "go10898, 330 ms pauses", logIn("gctrace/01-go10898-go15dev-hashnum-1P.log", ""), Critical, "longest pause", 330, 330),
	fires("stw-long", "59 ms pauses beside CPU hogs, placed in time", runIn("host/pauses-hogs", ""), Info, "CPU pressure around the longest pause", 90, 100),
	fires("stw-long", "go build's 114 ms compiler pause on a contended host", runIn("host/gobuild", ""), Info, "CPU pressure over the run", 90, 100),
	quiet("stw-long", "gofmt, pauses up to 7.1 ms, p99 2.6 ms", logIn("gctrace/gofmt-l-goroot-src.gctrace.log", "go1.26")),
	fires("stw-long", "a running program spinning 60 ms without preemption", liveIn("stw"), Warning, "longest pause", 10, 100),
	quiet("stw-long", "a healthy running program", liveIn("healthy")),

	fires("trace-assist-heavy", "64 KiB buffers over a pointer-rich heap", traceIn("trace/assist.trace"), Warning, "assist share of mark CPU", 50, 60),
	quiet("trace-assist-heavy", "one buffer reused", traceIn("trace/assist-fix.trace")),

	fires("trace-stw-long", "a collection waiting for a spinning goroutine", traceIn("trace/stw.trace"), Critical, "longest stop", 250, 350),
	quiet("trace-stw-long", "the goroutine yields", traceIn("trace/stw-fix.trace")),

	fires("tune-gc", "gofmt at 10.6% GC CPU", tuneIn("gctrace/gofmt-l-goroot-src.gctrace.log"), Info, "GC CPU now (model)", 5, 20),
	quiet("tune-gc", "a program that is mostly idle: GC at about 1% of the CPU", tuneIn("gctrace/go1.26-scav.log")),
	quiet("tune-gc", "a go build: its busiest process, a compile, sets its own GOGC, which the model cannot give back", tuneIn("gctrace/go-build-cmd-go.gctrace.log")),

	fires("workers-cpu-starved", "64 CPU-bound workers on 2 P", traceIn("trace/starved.trace"), Warning, "workers", 64, 64),
	fires("workers-cpu-starved", "64 CPU-bound workers on 2 P beside CPU hogs", runIn("host/starved-hogs", "host/starved-hogs/trace.out"), Info, "CPU pressure over the run", 90, 100),
	quiet("workers-cpu-starved", "2 workers", traceIn("trace/starved-fix.trace")),
	quiet("workers-cpu-starved", "a goroutine per item, living through the trace", traceIn("trace/slices.trace")),
	quiet("workers-cpu-starved", "a goroutine per item beside CPU hogs", runIn("host/slices-hogs", "host/slices-hogs/trace.out")),

	fires("workers-io-bound", "2 workers that mostly sleep", traceIn("trace/iobound.trace"), Info, "recommended workers", 10, 40),
	quiet("workers-io-bound", "24 workers", traceIn("trace/iobound-fix.trace")),
}

// TestRuleCases checks that every registered rule has a case that fires
// and a near miss, so that a rule cannot be added without both.
func TestRuleCases(t *testing.T) {
	has := map[string][2]bool{}
	for _, c := range ruleCases {
		if _, ok := Lookup(c.rule); !ok {
			t.Errorf("case %q is for %s, which is not a rule", c.input, c.rule)
		}
		h := has[c.rule]
		if c.fires {
			h[0] = true
		} else {
			h[1] = true
		}
		has[c.rule] = h
	}
	for _, r := range Rules() {
		if !has[r.ID][0] {
			t.Errorf("%s has no case that fires in ruleCases", r.ID)
		}
		if !has[r.ID][1] {
			t.Errorf("%s has no near miss in ruleCases", r.ID)
		}
	}
}

// TestRules judges each case's evidence: the rule fires with the severity
// and the figure expected, or stays quiet.
func TestRules(t *testing.T) {
	for _, c := range ruleCases {
		verb := "quiet"
		if c.fires {
			verb = "fires"
		}
		t.Run(fmt.Sprintf("%s/%s/%s", c.rule, verb, c.input), func(t *testing.T) {
			in := c.in(t)
			d := Diagnose(in)
			f, ok := findingByID(d, c.rule)
			if !c.fires {
				if !hasEvidence(in) {
					t.Fatal("a near miss needs evidence to judge")
				}
				if ok {
					t.Errorf("fired: %s", f.Message)
				}
				return
			}
			if !ok {
				t.Fatalf("did not fire; findings %v", ids(d))
			}
			if f.Severity != c.sev {
				t.Errorf("severity %s, want %s: %s", f.Severity, c.sev, f.Message)
			}
			v, found := evidenceValue(f, c.label)
			if !found {
				t.Errorf("no evidence %q in %+v", c.label, f.Evidence)
			} else if v < c.lo || v > c.hi {
				t.Errorf("%s = %v, want %v–%v", c.label, v, c.lo, c.hi)
			}
			checkComplete(t, f)
		})
	}
}

// hasEvidence reports whether the input holds anything for a rule to
// judge: a near miss is never an empty input.
func hasEvidence(in *Input) bool {
	return (in.Log != nil && len(in.Log.Segments) > 0) || in.Heap != nil || in.Trace != nil || in.Lint != nil || len(in.RSS) > 0 || in.Live != nil
}

func evidenceValue(f Finding, label string) (float64, bool) {
	for _, e := range f.Evidence {
		if e.Label == label {
			return e.Value, true
		}
	}
	return math.NaN(), false
}

// checkComplete checks what every finding owes its reader: the numbers, a
// source for each, what to do and how to check it.
func checkComplete(t *testing.T, f Finding) {
	t.Helper()
	if f.Title == "" || f.Message == "" || f.Remedy == "" || f.Verify == "" || len(f.Evidence) == 0 {
		t.Errorf("incomplete finding %+v", f)
	}
	for _, e := range f.Evidence {
		if e.Source == "" || math.IsNaN(e.Value) {
			t.Errorf("evidence %q: value %v, source %q", e.Label, e.Value, e.Source)
		}
	}
	if strings.Contains(f.Message+f.Remedy+f.Verify, "%!") {
		t.Errorf("bad format verb in %q / %q / %q", f.Message, f.Remedy, f.Verify)
	}
}

// TestRuleFiles holds the package to one rule per file: each rule is
// registered from rule_ID.go (with - as _).
func TestRuleFiles(t *testing.T) {
	for _, r := range Rules() {
		want := "rule_" + strings.ReplaceAll(r.ID, "-", "_") + ".go"
		if r.file != want {
			t.Errorf("%s is registered from %s, want %s", r.ID, r.file, want)
		}
	}
}
