package live_test

import (
	"math"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/live"
)

// The precision the live figures are held to against the service's own
// gctrace lines over the same window, beyond which the test fails:
const (
	// GC CPU measured by the runtime (its CPU classes, or GCCPUFraction at
	// both ends with the start time) against the cycles' CPU fields: within
	// half a percentage point of the available CPU, or 5% of the figure,
	// of the band from the cycles' mark CPU alone to their mark and
	// stop-the-world CPU. The runtime counts a pause × GOMAXPROCS from when
	// every P has stopped, gctrace from when stopping began: on a loaded
	// machine stopping takes milliseconds, and the two differ by that.
	cpuAbs, cpuRel = 0.005, 0.05
	// A cycle's pause (MemStats.PauseNs, or go_gc_duration_seconds) against
	// gctrace's clock fields, which give two significant digits: 0.05 ms,
	// or 10%.
	pauseAbsMS, pauseRel = 0.05, 0.10
)

func TestAgainstGCTrace(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		// cpu says how the GC CPU is obtained: "exact", "since-start"
		// (the runtime's average since the start), "with-start"
		// (GCCPUFraction at both ends and the start time: exact once the
		// process is old enough, a range before), or "estimate".
		cpu string
		// pauses says where they come from: "ring", "histogram" or
		// "summary".
		pauses string
		// live says whether the live heap is measured ("exact"),
		// estimated from the goal ("estimate"), or unknown ("").
		live string
	}{
		{"pprof only", []string{"-pprof"}, "since-start", "ring", "estimate"},
		{"expvar only", []string{"-expvar"}, "since-start", "ring", "estimate"},
		{"metrics only", []string{"-metrics"}, "estimate", "summary", "estimate"},
		{"metrics with the CPU classes", []string{"-metrics", "-cpu-classes"}, "exact", "summary", "exact"},
		{"pprof and metrics", []string{"-pprof", "-metrics"}, "with-start", "ring", "estimate"},
		{"agent only", []string{"-agent"}, "exact", "histogram", "exact"},
		{"pprof and agent", []string{"-pprof", "-agent"}, "exact", "ring", "exact"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deadline := time.Now().Add(60 * time.Second)
			s := startServer(t, deadline, tc.args...)
			a, b, during := window(t, s, deadline, 20)
			k, err := live.Between(a, b, during...)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := counter(a), counter(b)
			r := reference(t, s.cycles(t), s, a.Time, b.Time, lo, hi)
			t.Logf("sources %v, window %.2f s, cycles %d (gctrace %d, numbers %d..%d)", k.Sources, k.WindowS, k.Cycles, r.cycles, lo+1, hi)
			t.Logf("GC CPU %.4f [%.4f, %.4f] exact=%v since start %.4f (%s); gctrace %.4f–%.4f, cumulative %d%%",
				k.GCCPU.Fraction, k.GCCPU.Low, k.GCCPU.High, k.GCCPU.Exact, k.GCCPU.SinceStart, k.GCCPU.From, r.gcCPUMark, r.gcCPU, r.sinceStart)
			t.Logf("pause max %.3f ms p50 %.3f (%d, %s); gctrace cycle max %.3f, phase max %.3f",
				k.Pauses.MaxMS, k.Pauses.P50MS, k.Pauses.Count, k.Pauses.From, r.pauseMax, r.phaseMax)
			t.Logf("goal %.1f MiB (gctrace next goal %d MB), live %.1f MiB estimated=%v (gctrace %d MB), GOGC %d, GOMAXPROCS %d",
				k.HeapGoalBytes/(1<<20), r.nextGoalMB, k.LiveHeapBytes/(1<<20), k.LiveEstimated, r.liveMB, k.GOGC, k.GOMAXPROCS)
			checkAgreement(t, k, r, tc.cpu, tc.pauses, tc.live, hi)
		})
	}
}

func checkAgreement(t *testing.T, k *live.KPIs, r ref, cpu, pauses, liveHeap string, hi int) {
	t.Helper()
	if d := k.Cycles - r.cycles; d < -1 || d > 1 {
		t.Errorf("%d cycles in the window, gctrace has %d ending between the samples", k.Cycles, r.cycles)
	}
	tol := math.Max(cpuAbs, cpuRel*r.gcCPU)
	if cpu == "with-start" && !k.GCCPU.Exact {
		// The start time is known to the second: in a young process
		// the window's share is a range, which must hold gctrace's.
		if k.GCCPU.High < r.gcCPUMark-tol || k.GCCPU.Low > r.gcCPU+tol {
			t.Errorf("GC CPU in [%.4f, %.4f] (young process), gctrace %.4f–%.4f", k.GCCPU.Low, k.GCCPU.High, r.gcCPUMark, r.gcCPU)
		}
		cpu = ""
	}
	switch cpu {
	case "exact", "with-start":
		if !k.GCCPU.Exact || k.GCCPU.Fraction < r.gcCPUMark-tol || k.GCCPU.Fraction > r.gcCPU+tol {
			t.Errorf("GC CPU %.4f (exact %v), gctrace %.4f–%.4f", k.GCCPU.Fraction, k.GCCPU.Exact, r.gcCPUMark, r.gcCPU)
		}
	case "since-start":
		// gctrace prints the same figure, truncated to a whole percent.
		if k.GCCPU.Exact || int(k.GCCPU.SinceStart*100) != r.sinceStart || k.GCCPU.Fraction != k.GCCPU.SinceStart {
			t.Errorf("GC CPU %.4f (exact %v) since the start %.4f, gctrace's cumulative %d%%", k.GCCPU.Fraction, k.GCCPU.Exact, k.GCCPU.SinceStart, r.sinceStart)
		}
	case "estimate":
		if k.GCCPU.Exact || !(r.gcCPU >= k.GCCPU.Low && r.gcCPU <= k.GCCPU.High) {
			t.Errorf("GC CPU estimated %.4f in [%.4f, %.4f] (exact %v), gctrace %.4f", k.GCCPU.Fraction, k.GCCPU.Low, k.GCCPU.High, k.GCCPU.Exact, r.gcCPU)
		}
	}
	want := r.pauseMax
	switch pauses {
	case "summary":
		want = r.maxPauseOf(hi, k.Pauses.Count)
		fallthrough
	case "ring":
		if !k.Pauses.PerCycle || math.Abs(k.Pauses.MaxMS-want) > math.Max(pauseAbsMS, pauseRel*want) {
			t.Errorf("longest pause %.3f ms (%s), gctrace %.3f ms", k.Pauses.MaxMS, k.Pauses.From, want)
		}
	case "histogram":
		// The upper bound of a bucket at most 25% wide, on one phase,
		// whose gctrace figure is cut to two digits: 1.0 ms is up to
		// 1.0999 ms.
		if k.Pauses.PerCycle || k.Pauses.MaxMS < r.phaseMax-pauseAbsMS || k.Pauses.MaxMS > 1.25*(r.phaseMax+lastDigit(r.phaseMax))+pauseAbsMS {
			t.Errorf("longest pause %.3f ms (%s), gctrace's longest phase %.3f ms", k.Pauses.MaxMS, k.Pauses.From, r.phaseMax)
		}
	}
	if r.nextGoalMB >= 0 {
		if d := int64(k.HeapGoalBytes)>>20 - r.nextGoalMB; d < -1 || d > 1 {
			t.Errorf("heap goal %d MiB, gctrace's next cycle has %d MB", int64(k.HeapGoalBytes)>>20, r.nextGoalMB)
		}
	}
	switch liveMB := k.LiveHeapBytes / (1 << 20); liveHeap {
	case "exact":
		if k.LiveEstimated || math.Abs(liveMB-float64(r.liveMB)) > 1 {
			t.Errorf("live heap %.1f MiB (estimated %v), gctrace %d MB", liveMB, k.LiveEstimated, r.liveMB)
		}
	case "estimate":
		if !k.LiveEstimated || math.Abs(liveMB-float64(r.liveMB)) > math.Max(1, 0.1*float64(r.liveMB)) {
			t.Errorf("live heap estimated %.1f MiB (estimated %v), gctrace %d MB", liveMB, k.LiveEstimated, r.liveMB)
		}
	}
}

// lastDigit is the value of the last digit gctrace prints of a time of ms
// milliseconds: two significant digits below 10 ms, whole ms above
// (runtime.fmtNSAsMS, which cuts rather than rounds).
func lastDigit(ms float64) float64 {
	if ms >= 10 || ms <= 0 {
		return 1
	}
	return math.Pow(10, math.Floor(math.Log10(ms))-1)
}
