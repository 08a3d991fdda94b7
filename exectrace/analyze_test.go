package exectrace

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func TestHeaderErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		is    error  // errors.Is target, or nil
		minor int    // VersionError.Minor when is is nil
		msg   string // part of the message
	}{
		{"empty", "", ErrEmpty, 0, "empty file"},
		{"text", "hello, world\nthis is not a trace\n", ErrNotTrace, 0, "not a Go execution trace"},
		{"binary", "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10", ErrNotTrace, 0, "not a Go execution trace"},
		{"pprof", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", ErrNotTrace, 0, "not a Go execution trace"},
		{"cut header", "go 1.23 tra", ErrNotTrace, 0, "ends inside the header"},
		{"go1.5", "go 1.5 trace\x00\x00\x00\x00", nil, 5, "trace format from Go 1.5; record with Go ≥ 1.22"},
		{"go1.21", "go 1.21 trace\x00\x00\x00", nil, 21, "trace format from Go 1.21; record with Go ≥ 1.22"},
		{"go1.99", "go 1.99 trace\x00\x00\x00", nil, 99, "newer than this reader knows"},
		{"bad version", "go 1.x trace\x00\x00\x00\x00", ErrNotTrace, 0, "not a Go execution trace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Analyze(strings.NewReader(tc.input), Options{})
			if err == nil {
				t.Fatalf("no error; result %+v", res)
			}
			if res != nil {
				t.Errorf("result %+v with error %v", res, err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			var ve *VersionError
			if tc.is == nil && (!errors.As(err, &ve) || ve.Minor != tc.minor) {
				t.Errorf("error %v: want VersionError for 1.%d", err, tc.minor)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
		})
	}
}

// TestOldTraceFile reads a real Go 1.21 trace from the Go distribution, and
// checks the file name leads the message.
func TestOldTraceFile(t *testing.T) {
	goroot, err := exec.Command(goCommand(t), "env", "GOROOT").Output()
	if err != nil {
		t.Skip(err)
	}
	old := filepath.Join(strings.TrimSpace(string(goroot)), "src/internal/trace/internal/tracev1/testdata/http_1_21_good")
	data, err := os.ReadFile(old)
	if err != nil {
		t.Skipf("no Go 1.21 trace in the Go distribution: %v", err)
	}
	path := filepath.Join(t.TempDir(), "trace.out")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = AnalyzeFile(path, Options{})
	if err == nil || !strings.HasSuffix(err.Error(), "trace.out: trace format from Go 1.21; record with Go ≥ 1.22") {
		t.Errorf("got error %v", err)
	}
}

// TestTruncated cuts a multi-generation trace at many points: every cut
// gives partial results and a TruncatedError, and later cuts see more.
func TestTruncated(t *testing.T) {
	path := recordConcat(t, true).trace
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Analyze(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var lastEvents int64
	for _, frac := range []float64{0.001, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.9999} {
		n := int(float64(len(data)) * frac)
		res, err := Analyze(bytes.NewReader(data[:n]), Options{})
		var te *TruncatedError
		if !errors.As(err, &te) {
			t.Fatalf("cut at %d of %d bytes: error %v, want TruncatedError", n, len(data), err)
		}
		if res == nil || !res.Partial {
			t.Fatalf("cut at %d: result %v, want partial", n, res)
		}
		if res.Events < lastEvents || res.Events > full.Events || res.GC.Cycles > full.GC.Cycles {
			t.Errorf("cut at %d: %d events, %d cycles (full trace %d, %d; previous cut %d events)",
				n, res.Events, res.GC.Cycles, full.Events, full.GC.Cycles, lastEvents)
		}
		lastEvents = res.Events
		t.Logf("cut at %5.1f%%: %d events, %d GC cycles: %v", frac*100, res.Events, res.GC.Cycles, err)
	}
}

// checkInvariants checks what must hold for any trace.
func checkInvariants(t *testing.T, res *Result) {
	t.Helper()
	if res.Duration <= 0 || res.Events == 0 {
		t.Errorf("duration %v, %d events", res.Duration, res.Events)
	}
	if res.Procs.GOMAXPROCS < 1 || res.Procs.Max < res.Procs.GOMAXPROCS {
		t.Errorf("procs %+v", res.Procs)
	}
	for _, s := range res.GC.Stops {
		if s.Running < 0 || s.StoppingMS < 0 || s.StoppingMS > s.DurationMS+1e-9 || (s.Holder != "") != (s.HolderID != 0) || (s.Holder != "" && s.Running == 0) {
			t.Errorf("stop %+v: inconsistent holder", s)
		}
	}
	prev := -1.0
	for _, p := range res.MMU.Points {
		if p.Util < 0 || p.Util > 1 || p.Bounded < 0 || p.Bounded > p.Util {
			t.Errorf("MMU point %+v out of range", p)
		}
		if p.Bounded < prev {
			t.Errorf("bounded MMU decreases at %v ms: %v < %v", p.WindowMS, p.Bounded, prev)
		}
		prev = p.Bounded
	}
	for i := 1; i < len(res.MMU.Points); i++ {
		if a, b := res.MMU.Points[i-1], res.MMU.Points[i]; b.Util < a.Util-1e-9 {
			// Possible in principle (see MMUPoint.Util); report it to see
			// how often real traces do it.
			t.Logf("MMU decreases from %v ms (%.4f) to %v ms (%.4f)", a.WindowMS, a.Util, b.WindowMS, b.Util)
		}
	}
	// The default windows up to the trace's length, and none longer.
	if len(res.MMU.Points) == 0 || len(res.MMU.Points) > len(DefaultMMUWindows) {
		t.Errorf("%d MMU points", len(res.MMU.Points))
	}
	for i, p := range res.MMU.Points {
		if i < len(DefaultMMUWindows) && p.WindowMS != float64(DefaultMMUWindows[i])/1e6 || p.WindowMS > float64(res.Duration)/1e6 {
			t.Errorf("MMU point %d at %v ms in a %v trace, want the default windows up to its length", i, p.WindowMS, res.Duration)
		}
	}
	if p, ok := res.MMU.At(10 * time.Millisecond); ok && p.Util != res.MMU.At10ms {
		t.Errorf("MMU at 10 ms: %+v vs %v", p, res.MMU.At10ms)
	}
	gc := &res.GC
	if gc.STW.Count != gc.GCSTW.Count+gc.OtherSTW.Count || gc.STW.Count != len(gc.Stops)+gc.StopsDropped {
		t.Errorf("STW counts: %d all, %d GC, %d other, %d listed", gc.STW.Count, gc.GCSTW.Count, gc.OtherSTW.Count, len(gc.Stops))
	}
	var sum float64
	for _, s := range gc.Stops {
		sum += s.DurationMS
		if s.Reason == "" || s.AtMS < 0 || s.DurationMS < 0 {
			t.Errorf("stop %+v", s)
		}
	}
	if math.Abs(sum-gc.STW.TotalMS) > 1e-6*max(1, sum) {
		t.Errorf("stops add up to %v ms, total says %v", sum, gc.STW.TotalMS)
	}
	for _, st := range []PauseStats{gc.STW, gc.GCSTW, gc.OtherSTW} {
		if st.Count > 0 && !(st.P50MS <= st.P95MS && st.P95MS <= st.P99MS && st.P99MS <= st.MaxMS && st.MaxMS <= st.TotalMS+1e-9) {
			t.Errorf("pause stats out of order: %+v", st)
		}
	}
	if len(gc.Heap) > 512 {
		t.Errorf("%d heap points", len(gc.Heap))
	}
	for i, h := range gc.Heap {
		if h.LiveBytes > gc.HeapPeakBytes || (i > 0 && h.AtMS <= gc.Heap[i-1].AtMS) {
			t.Errorf("heap point %d: %+v", i, h)
		}
	}
	if f := gc.CPU.Fraction; f < 0 || f > gc.CPU.FractionWithIdle || gc.CPU.FractionWithIdle > 1 {
		t.Errorf("GC CPU %+v", gc.CPU)
	}
	// No group can run longer than the Ps were there.
	capacity := float64(res.Duration) / 1e6 * float64(res.Procs.Max)
	var running float64
	seen := 0
	for _, g := range res.Groups {
		running += g.RunningMS
		seen += g.Count
		if g.Count <= 0 || g.Created > g.Count || g.PeakLive > g.Count || g.AssistMS > g.RunningMS+1e-6 {
			t.Errorf("group %+v", g)
		}
		if g.RunnableShare.P50 > g.RunnableShare.P95 || g.RunnableShare.Max > 1 {
			t.Errorf("group %s runnable share %+v", g.Name, g.RunnableShare)
		}
	}
	if running > capacity*1.001 {
		t.Errorf("goroutines ran %v ms on %v ms of Ps", running, capacity)
	}
	if seen != res.Goroutines.Seen || res.Goroutines.PeakLive > seen || res.Goroutines.Created > seen {
		t.Errorf("goroutines %+v, groups hold %d", res.Goroutines, seen)
	}
}

// TestExplosion reads the goroutine explosion: every round of goroutines
// is started at once, so they queue for the two Ps.
func TestExplosion(t *testing.T) {
	res := analyzeFile(t, recordConcat(t, false).trace)
	checkInvariants(t, res)
	g := res.Group("main.concat")
	if g == nil {
		t.Fatalf("no main.concat group in %v", groupNames(res))
	}
	if g.Count != 800 || g.Created != 800 {
		t.Errorf("main.concat: %d goroutines, %d created; want 800", g.Count, g.Created)
	}
	if g.RunnableMS < 10*g.RunningMS {
		t.Errorf("main.concat: runnable %.1f ms is not ≫ running %.1f ms", g.RunnableMS, g.RunningMS)
	}
	if g.PeakLive < 100 {
		t.Errorf("main.concat: at most %d alive at once", g.PeakLive)
	}
	if res.GC.Cycles == 0 || res.GC.GCSTW.Count < res.GC.Cycles {
		t.Errorf("%d cycles, %d GC pauses", res.GC.Cycles, res.GC.GCSTW.Count)
	}
	if g.AssistMS <= 0 || res.GC.CPU.AssistMS < g.AssistMS {
		t.Errorf("assists: group %v ms, all %v ms", g.AssistMS, res.GC.CPU.AssistMS)
	}
	if res.GC.CPU.Fraction <= 0.05 {
		t.Errorf("GC CPU fraction %v with runtime.GC in a loop", res.GC.CPU.Fraction)
	}
	if res.MMU.At1ms > 0.5 {
		t.Errorf("MMU at 1 ms %v with runtime.GC in a loop", res.MMU.At1ms)
	}
	t.Logf("main.concat: %d goroutines, running %.0f ms, runnable %.0f ms (share p50 %.2f p95 %.2f), blocked on GC %.0f ms, assists %.0f ms",
		g.Count, g.RunningMS, g.RunnableMS, g.RunnableShare.P50, g.RunnableShare.P95, g.Blocked.GCMS, g.AssistMS)
	t.Logf("GC: %d cycles, CPU fraction %.2f, MMU 1/10/100 ms %.2f/%.2f/%.2f", res.GC.Cycles, res.GC.CPU.Fraction, res.MMU.At1ms, res.MMU.At10ms, res.MMU.At100ms)
}

// TestBatched compares the batched run with the explosion: waiting for
// each round keeps the goroutines from queueing.
func TestBatched(t *testing.T) {
	burst := analyzeFile(t, recordConcat(t, false).trace)
	batched := analyzeFile(t, recordConcat(t, true).trace)
	checkInvariants(t, batched)
	gb, ga := batched.Group("main.concat"), burst.Group("main.concat")
	if gb == nil || ga == nil {
		t.Fatalf("no main.concat group")
	}
	if gb.Count != 800 {
		t.Errorf("batched main.concat: %d goroutines", gb.Count)
	}
	perA, perB := ga.RunnableMS/float64(ga.Count), gb.RunnableMS/float64(gb.Count)
	if perB > perA/4 {
		t.Errorf("runnable per goroutine: batched %.2f ms, explosion %.2f ms; want much less batched", perB, perA)
	}
	if gb.PeakLive > 16 {
		t.Errorf("batched: %d main.concat goroutines alive at once", gb.PeakLive)
	}
	t.Logf("runnable per goroutine: explosion %.2f ms, batched %.2f ms; peak live %d vs %d", perA, perB, ga.PeakLive, gb.PeakLive)
}

// TestGCTraceConsistency records one process with both an execution trace
// and GODEBUG=gctrace=1, and compares the two accounts of its collections.
func TestGCTraceConsistency(t *testing.T) {
	for _, batched := range []bool{false, true} {
		run := recordConcat(t, batched)
		res := analyzeFile(t, run.trace)
		// Keep the gctrace lines printed while tracing.
		log := run.stderr
		if i := bytes.Index(log, []byte("trace start\n")); i >= 0 {
			log = log[i:]
		}
		if i := bytes.Index(log, []byte("trace stop\n")); i >= 0 {
			log = log[:i]
		}
		l, err := gctrace.Parse(bytes.NewReader(log), "stderr", gctrace.Options{KeepCycles: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Segments) != 1 {
			t.Fatalf("%d gctrace segments", len(l.Segments))
		}
		cycles := l.Segments[0].Cycles
		var pauses float64
		for i := range cycles {
			pauses += cycles[i].PauseTotal()
		}
		if d := res.GC.Cycles - len(cycles); d < -1 || d > 1 {
			t.Errorf("batched=%v: trace has %d cycles, gctrace %d", batched, res.GC.Cycles, len(cycles))
		}
		// The trace's pause runs from the request to stop until the world
		// restarts; gctrace's clock phases cover about the same. Both round
		// to µs, and gctrace prints few digits, so allow a wide margin.
		if ratio := res.GC.GCSTW.TotalMS / pauses; ratio < 0.5 || ratio > 2 {
			t.Errorf("batched=%v: GC pauses %.2f ms in the trace, %.2f ms in gctrace", batched, res.GC.GCSTW.TotalMS, pauses)
		}
		t.Logf("batched=%v: cycles trace %d, gctrace %d; GC pauses trace %.2f ms, gctrace %.2f ms",
			batched, res.GC.Cycles, len(cycles), res.GC.GCSTW.TotalMS, pauses)
	}
}

// TestStdlibBenchmarks reads traces of standard library benchmarks.
func TestStdlibBenchmarks(t *testing.T) {
	if os.Getenv("GCDOCTOR_LONG") == "" {
		t.Skip("records and reads standard-library benchmark traces: a long test; set GCDOCTOR_LONG=1 to run it")
	}
	if testing.Short() {
		t.Skip("records benchmark traces")
	}
	for _, b := range stdlibBenches {
		t.Run(b.pkg, func(t *testing.T) {
			path := benchTrace(t, b.pkg, b.bench, "100ms")
			res := analyzeFile(t, path)
			checkInvariants(t, res)
			if res.GC.Cycles == 0 || len(res.Groups) < 3 || res.GC.HeapPeakBytes == 0 || len(res.GC.Heap) == 0 {
				t.Errorf("%d cycles, %d groups, heap peak %d, %d heap points", res.GC.Cycles, len(res.Groups), res.GC.HeapPeakBytes, len(res.GC.Heap))
			}
			if res.Group("testing.(*B).launch") == nil && res.Group("testing.(*B).run1.func1") == nil {
				t.Errorf("no benchmark goroutine in %v", groupNames(res))
			}
			top := res.Groups[0]
			t.Logf("%s: %v, %d events, %d cycles, STW p99 %.2f ms, GC CPU %.2f, MMU 1/10/100 ms %.2f/%.2f/%.2f, top group %s (%d goroutines)",
				b.pkg, res.Duration.Round(time.Millisecond), res.Events, res.GC.Cycles, res.GC.STW.P99MS, res.GC.CPU.Fraction,
				res.MMU.At1ms, res.MMU.At10ms, res.MMU.At100ms, top.Name, top.Count)
		})
	}
}

// TestGolden compares the summary of the committed small trace.
func TestGolden(t *testing.T) {
	res := analyzeFile(t, "testdata/small.trace")
	checkInvariants(t, res)
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := "testdata/golden/small.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("summary differs from %s (rerun with -update if intended):\n%s", golden, firstDiff(string(want), string(got)))
	}
}

// TestProgress checks the progress callback ends at the input's size.
func TestProgress(t *testing.T) {
	data, err := os.ReadFile("testdata/small.trace")
	if err != nil {
		t.Fatal(err)
	}
	var last int64 = -1
	calls := 0
	_, err = Analyze(bytes.NewReader(data), Options{Progress: func(n int64) {
		if n < last {
			t.Errorf("progress went back from %d to %d", last, n)
		}
		last = n
		calls++
	}})
	if err != nil {
		t.Fatal(err)
	}
	if last != int64(len(data)) || calls == 0 {
		t.Errorf("progress ended at %d after %d calls; input is %d bytes", last, calls, len(data))
	}
}

// TestMutations feeds corrupt copies of a real trace to Analyze: every one
// must return (no panic, no hang), with an error or a result.
func TestMutations(t *testing.T) {
	data, err := os.ReadFile("testdata/small.trace")
	if err != nil {
		t.Fatal(err)
	}
	n := 300
	if testing.Short() {
		n = 50
	}
	seed := uint64(1)
	rnd := func(k int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int((seed >> 33) % uint64(k))
	}
	for i := 0; i < n; i++ {
		m := bytes.Clone(data)
		for j := 0; j <= rnd(8); j++ {
			switch rnd(3) {
			case 0: // flip a byte
				m[16+rnd(len(m)-16)] ^= byte(1 + rnd(255))
			case 1: // cut
				m = m[:16+rnd(len(m)-16)]
			case 2: // drop a run
				at := 16 + rnd(len(m)-16)
				m = append(m[:at], m[min(len(m), at+rnd(64)):]...)
			}
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, err := Analyze(bytes.NewReader(m), Options{})
			if res == nil && err == nil {
				t.Errorf("mutation %d: no result and no error", i)
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("mutation %d: Analyze did not return", i)
		}
	}
}

func groupNames(res *Result) []string {
	var names []string
	for _, g := range res.Groups {
		names = append(names, g.Name)
	}
	return names
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n- " + w + "\n+ " + g
		}
	}
	return ""
}

// TestStopHolder reads what held each stop-the-world in two traces of
// the same program: a goroutine spinning without preemption points holds
// a collection's stop for as long as it spins; yielding now and then, it
// lets the stop through within a couple of ms.
func TestStopHolder(t *testing.T) {
	res := analyzeFile(t, "testdata/stw.trace")
	checkInvariants(t, res)
	var worst Stop
	for _, s := range res.GC.Stops {
		if s.DurationMS > worst.DurationMS {
			worst = s
		}
	}
	if worst.DurationMS < 100 || worst.StoppingMS < 0.9*worst.DurationMS || worst.Holder != "main.stopTheWorld.func1" || worst.Running != 1 {
		t.Errorf("longest stop %+v: want ≥ 100 ms, held ≥ 90%% of it by the one running goroutine of main.stopTheWorld.func1", worst)
	}

	fixed := analyzeFile(t, "testdata/stw-fix.trace")
	checkInvariants(t, fixed)
	held := false
	for _, s := range fixed.GC.Stops {
		if s.StoppingMS >= 5 || s.DurationMS >= 10 {
			t.Errorf("stop %+v: held or long though the goroutine yields", s)
		}
		held = held || s.Holder == "main.stopTheWorld.func1"
	}
	if !held {
		t.Errorf("stops %+v: the yielding goroutine is never the last to stop", fixed.GC.Stops)
	}
}
