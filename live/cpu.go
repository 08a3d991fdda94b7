package live

import (
	"fmt"
	"math"
)

// Calibration of the estimate of GC CPU from the cycles alone: the CPU a
// cycle costs per MiB it scans (live heap, stacks, globals), ms, with its
// likely range. They are fleet.DefaultCalibration's figures, measured on
// the pacer's test logs (TestCalibrationMatchesFleet holds them equal).
const (
	CostMSPerCycleMiB             = 0.39
	CostLowMS, CostHighMS float64 = 0.19, 0.94
)

// The estimate's range is wider than the calibration's, for what the
// calibration runs did not see. They ran alone on their host; on a host
// whose CPUs are contended, a mark worker's time counts while it waits to
// be scheduled, and the same cycles cost more: the test service of
// TestAgainstGCTrace (20 MiB live, 2 CPUs) costs 0.17–0.25 ms per cycle
// and MiB alone, 0.45–0.55 beside four CPU-bound processes, and up to 1.6
// beside a parallel test suite. Hence the high end × contendedFactor, and
// the low end × quietFactor for a quiet host's measurement noise.
const (
	contendedFactor = 2.0
	quietFactor     = 0.8
)

// backgroundUtilization is the share of GOMAXPROCS the dedicated mark
// workers take while the GC marks (gcBackgroundUtilization in
// runtime/mgcpacer.go).
const backgroundUtilization = 0.25

// gcCPU reads the GC's share of the CPU in the window, from the best
// source: the runtime's CPU classes (agent, or /metrics when the client
// exports them), GCCPUFraction at both ends with the process start time,
// GCCPUFraction alone (the average since the start), or an estimate from
// the cycles and the heap they scan.
func (k *KPIs) gcCPU(p pair) {
	c := &k.GCCPU
	c.SinceStart = first(ms(p.b, func(m *MemStatsFigures) float64 { return m.GCCPUFraction }), p.b.metric("go_memstats_gc_cpu_fraction"))
	if k.Cycles == 0 {
		c.exact(0, "no cycle ended in the window")
		return
	}
	classes := []struct {
		gc, idle, dedicated, total func(*Snapshot) float64
		from                       string
	}{
		{func(s *Snapshot) float64 { return s.rm("/cpu/classes/gc/total:cpu-seconds") },
			func(s *Snapshot) float64 { return s.rm("/cpu/classes/gc/mark/idle:cpu-seconds") },
			func(s *Snapshot) float64 { return s.rm("/cpu/classes/gc/mark/dedicated:cpu-seconds") },
			func(s *Snapshot) float64 { return s.rm("/cpu/classes/total:cpu-seconds") },
			"runtime/metrics /cpu/classes (agent)"},
		{func(s *Snapshot) float64 { return s.metric("go_cpu_classes_gc_total_cpu_seconds_total") },
			func(s *Snapshot) float64 { return s.metric("go_cpu_classes_gc_mark_idle_cpu_seconds_total") },
			func(s *Snapshot) float64 { return s.metric("go_cpu_classes_gc_mark_dedicated_cpu_seconds_total") },
			func(s *Snapshot) float64 { return s.metric("go_cpu_classes_total_cpu_seconds_total") },
			"go_cpu_classes_gc_* (/metrics)"},
	}
	for _, cl := range classes {
		total := p.delta(cl.total)
		gc := p.delta(cl.gc) - p.delta(cl.idle)
		if total > 0 && gc >= 0 {
			if d := p.delta(cl.dedicated); d >= 0 {
				c.MarkShare = min(d/(backgroundUtilization*total), 1)
			}
			// The runtime updates its CPU classes when a cycle ends: the
			// share is that of the cycles that ended in the window.
			c.exact(gc/total, cl.from+", between the ends of the last cycles before each sample")
			return
		}
	}
	if k.fractionCPU(p) {
		return
	}
	if !math.IsNaN(c.SinceStart) {
		c.Fraction = c.SinceStart
		c.From = "the runtime's average since the process started (GCCPUFraction): no source gives the window's own"
		return
	}
	k.estimateCPU()
}

// exact sets a measured share.
func (c *GCCPU) exact(v float64, from string) {
	c.Fraction, c.Low, c.High, c.Exact, c.From = v, v, v, true, from
}

// startSlack is how long after the process start (process_start_time_seconds,
// when the kernel started it) its runtime may have begun counting CPU: a
// large binary on a loaded machine takes a while to load.
const startSlack = 1.0 // s

// fractionCPU computes the share from GCCPUFraction at both ends: the
// runtime's average since the process started, as of the end of the last
// cycle, times the time since the start is the GC's CPU so far (over
// GOMAXPROCS, which cancels out). It needs the process start time, which
// only /metrics gives (process_start_time_seconds); the runtime starts its
// clock a little later, which matters only while the share since the start
// still changes fast: the figure is exact when the start's uncertainty
// moves it less than a tenth (or 0.1 point), an estimate with that range
// otherwise.
func (k *KPIs) fractionCPU(p pair) bool {
	start := first(p.b.metric("process_start_time_seconds"), p.a.metric("process_start_time_seconds"))
	at := func(s *Snapshot) (f, lastGC float64) {
		if s.MemStats != nil {
			return s.MemStats.GCCPUFraction, float64(s.MemStats.LastGC) / 1e9
		}
		return s.metric("go_memstats_gc_cpu_fraction"), s.metric("go_memstats_last_gc_time_seconds")
	}
	fa, la := at(p.a)
	fb, lb := at(p.b)
	if math.IsNaN(start) || math.IsNaN(fa+fb+la+lb) || la <= start || lb <= la {
		return false
	}
	share := func(s float64) float64 {
		s = min(s, la)
		return min(max((fb*(lb-s)-fa*(la-s))/(lb-la), 0), 1)
	}
	lo, hi := share(start), share(start+startSlack)
	if lo > hi {
		lo, hi = hi, lo
	}
	const from = "GCCPUFraction at both ends and the process start time, between the ends of the last cycles before each sample"
	mid := (lo + hi) / 2
	if hi-lo <= max(0.001, 0.1*mid) {
		k.GCCPU.exact(share(start), from)
		return true
	}
	c := &k.GCCPU
	c.Fraction, c.Low, c.High = mid, lo, hi
	c.From = "estimated from " + from + ": the process is young, and the share since its start still changes too fast to tell the window's apart within the second its runtime may have started after it"
	return true
}

// estimateCPU estimates the share from the cycles: each costs about
// CostMSPerCycleMiB per MiB it scans, and each pause takes every P.
func (k *KPIs) estimateCPU() {
	scan := k.scanBytes() / (1 << 20)
	if math.IsNaN(scan) || k.GOMAXPROCS == 0 || math.IsNaN(k.CyclesPerSecond) {
		k.GCCPU.From = "unknown: no source gives it, and the live heap or GOMAXPROCS needed to estimate it is unknown"
		return
	}
	pause := 0.0
	if t := k.Pauses.TotalMS; !math.IsNaN(t) {
		pause = t / 1000 / k.WindowS * float64(k.GOMAXPROCS)
	}
	share := func(cost float64) float64 {
		return min((k.CyclesPerSecond*cost/1000*scan+pause)/float64(k.GOMAXPROCS), 1)
	}
	c := &k.GCCPU
	lo, hi := quietFactor*CostLowMS, contendedFactor*CostHighMS
	c.Fraction, c.Low, c.High = share(CostMSPerCycleMiB), share(lo), share(hi)
	c.From = fmt.Sprintf("estimated: cycles/s × %.2g ms per cycle and scanned MiB (%.2g–%.2g: the pacer's test logs, widened for a contended host) + pauses × GOMAXPROCS", CostMSPerCycleMiB, lo, hi)
}
