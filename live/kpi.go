package live

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// KPIs are the figures of a window between two snapshots, as a gctrace log
// of the same window would give them. A figure no source gave is NaN
// (floats) or 0 (counts, GOMAXPROCS).
type KPIs struct {
	// WindowS is the time between the two snapshots, s.
	WindowS float64
	// Sources are the sources both snapshots hold, which the figures come
	// from.
	Sources []Source
	// GoVersion is the service's Go version ("go1.26.1"), "" when unknown.
	GoVersion string
	// Cycles are the GC cycles that ended in the window, Forced those of
	// them that runtime.GC or debug.FreeOSMemory started.
	Cycles, Forced  int
	CyclesPerSecond float64
	GCCPU           GCCPU
	Pauses          Pauses
	// AllocBytes is what the program allocated in the window, bytes, and
	// AllocBytesPerSecond its rate.
	AllocBytes, AllocBytesPerSecond float64
	// HeapAllocBytes and HeapGoalBytes are the heap and its goal at the
	// end of the window; LiveHeapBytes is the heap the last cycle marked
	// live, estimated from the goal and GOGC when LiveEstimated.
	HeapAllocBytes, HeapGoalBytes, LiveHeapBytes float64
	LiveEstimated                                bool
	// StackBytes and GlobalsBytes are the goroutine stacks and the global
	// data the GC scans, bytes.
	StackBytes, GlobalsBytes float64
	// GOGC in force: -1 when off, 0 when unknown.
	GOGC int
	// MemoryLimitBytes is GOMEMLIMIT in force: +Inf when none, NaN when
	// unknown.
	MemoryLimitBytes float64
	// GOMAXPROCS in force, 0 when unknown.
	GOMAXPROCS int
	// RSSBytes is the resident set size at the end of the window, and
	// MaxRSSBytes the largest the process has had, bytes.
	RSSBytes, MaxRSSBytes float64
	// Goroutines is the number of goroutines at the end of the window,
	// NaN when no source gives it (MemStats and expvar do not).
	Goroutines float64
	// SchedLatencyP99MS is the 99th percentile of the time goroutines
	// waited to run once runnable, in the window, ms (agent only).
	SchedLatencyP99MS float64
	// Caveats say what limits the figures.
	Caveats []string
}

// GCCPU is the GC's share of the CPU available to the program (wall time
// × GOMAXPROCS) in the window, idle mark workers excluded, as gctrace's
// CPU fields count it.
type GCCPU struct {
	// Fraction is the share, 0..1; NaN when unknown. Low and High bound
	// an estimate; they equal Fraction when it is exact.
	Fraction, Low, High float64
	// Exact reports whether the runtime measured it for the window;
	// otherwise it is an estimate.
	Exact bool
	// From says how it was obtained.
	From string
	// SinceStart is the runtime's own share since the program started
	// (GCCPUFraction), NaN when no source gives it.
	SinceStart float64
	// MarkShare is the share of the window the GC spent marking: the
	// dedicated mark workers' CPU over the 25% of GOMAXPROCS they take
	// while it marks. NaN unless the runtime's CPU classes are served.
	MarkShare float64
}

// Pauses are the stop-the-world pauses of the window.
type Pauses struct {
	// Count is the number of pauses (or cycles, when PerCycle) the
	// figures are drawn from.
	Count int
	// MaxMS, P50MS and P99MS are the longest pause and percentiles, ms;
	// TotalMS the pauses' sum over the window. NaN when unknown.
	MaxMS, P50MS, P99MS, TotalMS float64
	// PerCycle reports that each figure is a cycle's two stop-the-world
	// phases together (MemStats.PauseNs), rather than one phase.
	PerCycle bool
	// Window reports that the figures cover exactly the window's cycles;
	// otherwise From says which.
	Window bool
	From   string
}

// ErrRestarted marks a service whose counters went back between two
// snapshots: it restarted, and the two belong to different processes.
var ErrRestarted = errors.New("the service restarted between the samples")

// Between returns the KPIs of the window from start to end. during are
// snapshots taken in between, in any order; only their pause rings are
// used, to see the pauses of more than 256 cycles.
func Between(start, end *Snapshot, during ...*Snapshot) (*KPIs, error) {
	if start == nil || end == nil {
		return nil, errors.New("live: two snapshots are needed")
	}
	w := end.Time.Sub(start.Time).Seconds()
	if !(w > 0) {
		return nil, fmt.Errorf("live: the end snapshot (%s) is not after the start (%s)", end.Time.Format("15:04:05.000"), start.Time.Format("15:04:05.000"))
	}
	k := &KPIs{WindowS: w, GCCPU: GCCPU{Fraction: math.NaN(), Low: math.NaN(), High: math.NaN(), SinceStart: math.NaN(), MarkShare: math.NaN()},
		Pauses: Pauses{MaxMS: math.NaN(), P50MS: math.NaN(), P99MS: math.NaN(), TotalMS: math.NaN()}}
	for _, s := range start.Sources() {
		if slices.Contains(end.Sources(), s) {
			k.Sources = append(k.Sources, s)
		}
	}
	if len(k.Sources) == 0 {
		return nil, fmt.Errorf("live: the two snapshots have no source in common (%v and %v)", start.Sources(), end.Sources())
	}
	p := pair{a: start, b: end, during: during}
	if err := k.cycles(p); err != nil {
		return nil, err
	}
	k.settings(p)
	k.heap(p)
	k.pauses(p)
	k.gcCPU(p)
	k.schedLatency(p)
	return k, nil
}

// pair is the two ends of a window.
type pair struct {
	a, b   *Snapshot
	during []*Snapshot
}

// delta returns what a counter gained in the window, read by get from
// each end; NaN when either lacks it.
func (p pair) delta(get func(*Snapshot) float64) float64 { return get(p.b) - get(p.a) }

// first returns the first figure that is known.
func first(vs ...float64) float64 {
	for _, v := range vs {
		if !math.IsNaN(v) {
			return v
		}
	}
	return math.NaN()
}

// ms reads a MemStats figure, NaN without MemStats.
func ms(s *Snapshot, f func(*MemStatsFigures) float64) float64 {
	if s.MemStats == nil {
		return math.NaN()
	}
	return f(s.MemStats)
}

// cycles counts the cycles of the window, from the best counter both ends
// have.
func (k *KPIs) cycles(p pair) error {
	counters := []struct {
		name          string
		total, forced func(*Snapshot) float64
	}{
		{"/gc/cycles/total:gc-cycles", func(s *Snapshot) float64 { return s.rm("/gc/cycles/total:gc-cycles") },
			func(s *Snapshot) float64 { return s.rm("/gc/cycles/forced:gc-cycles") }},
		{"NumGC", func(s *Snapshot) float64 { return ms(s, func(m *MemStatsFigures) float64 { return float64(m.NumGC) }) },
			func(s *Snapshot) float64 {
				return ms(s, func(m *MemStatsFigures) float64 { return float64(m.NumForcedGC) })
			}},
		{"go_gc_duration_seconds_count", func(s *Snapshot) float64 {
			if s.Metrics == nil || s.Metrics.Pauses == nil {
				return math.NaN()
			}
			return float64(s.Metrics.Pauses.Count)
		}, func(s *Snapshot) float64 { return s.metric("go_gc_cycles_forced_gc_cycles_total") }},
	}
	for _, c := range counters {
		d := p.delta(c.total)
		if math.IsNaN(d) {
			continue
		}
		if d < 0 {
			return fmt.Errorf("live: %w (%s went from %.0f to %.0f)", ErrRestarted, c.name, c.total(p.a), c.total(p.b))
		}
		k.Cycles = int(d)
		k.CyclesPerSecond = d / k.WindowS
		if f := p.delta(c.forced); f >= 0 {
			k.Forced = int(f)
		}
		return nil
	}
	k.CyclesPerSecond = math.NaN()
	k.Caveats = append(k.Caveats, "no source counts the GC cycles")
	return nil
}

// settings reads what is in force at the end: GOGC, GOMEMLIMIT,
// GOMAXPROCS, the Go version.
func (k *KPIs) settings(p pair) {
	b := p.b
	if b.Agent != nil {
		k.GoVersion = b.Agent.GoVersion
	} else if b.Metrics != nil {
		k.GoVersion = b.Metrics.GoVersion
	}
	switch g := first(b.rm("/gc/gogc:percent"), b.metric("go_gc_gogc_percent")); {
	case math.IsNaN(g):
	case g < 0 || g > math.MaxInt32:
		// GOGC=off reads as -1 converted to a uint64.
		k.GOGC = -1
	default:
		k.GOGC = int(g)
	}
	k.MemoryLimitBytes = first(b.rm("/gc/gomemlimit:bytes"), b.metric("go_gc_gomemlimit_bytes"))
	if k.MemoryLimitBytes >= math.MaxInt64*0.999 {
		k.MemoryLimitBytes = math.Inf(1)
	}
	if n := first(b.rm("/sched/gomaxprocs:threads"), b.metric("go_sched_gomaxprocs_threads")); n > 0 {
		k.GOMAXPROCS = int(n)
	}
	k.RSSBytes = b.metric("process_resident_memory_bytes")
	k.Goroutines = first(b.rm("/sched/goroutines:goroutines"), b.metric("go_goroutines"))
	k.MaxRSSBytes = ms(b, func(m *MemStatsFigures) float64 {
		if m.MaxRSS == 0 {
			return math.NaN()
		}
		return float64(m.MaxRSS)
	})
}
