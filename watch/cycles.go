package watch

import (
	"math"
	"slices"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/live"
)

// cycleFigures are the figures of a program that gctrace does not give,
// read beside it: its settings and its resident set.
type cycleFigures struct {
	gogc  int     // -1 for off, 0 unknown
	limit float64 // GOMEMLIMIT, +Inf for none
	rss   float64 // NaN when unknown
}

// kpisOf turns the cycles that ended in a window of windowS seconds into
// the KPIs live gives for a service, as the program's gctrace lines count
// them: GC CPU from the cycles' CPU fields (idle mark workers left out,
// as live counts it), the pauses from their clock fields, the heap from
// the last cycle. prev is the cycle before the window, nil when none: the
// allocation of the window's first cycle is measured from it.
func kpisOf(cycles []gctrace.Cycle, prev *gctrace.Cycle, windowS float64, f cycleFigures) *live.KPIs {
	nan := math.NaN()
	k := &live.KPIs{WindowS: windowS, Cycles: len(cycles), CyclesPerSecond: float64(len(cycles)) / windowS,
		GCCPU:      live.GCCPU{Fraction: nan, Low: nan, High: nan, SinceStart: nan, MarkShare: nan},
		Pauses:     live.Pauses{MaxMS: nan, P50MS: nan, P99MS: nan, TotalMS: nan, PerCycle: true, Window: true, From: "gctrace's clock fields, every cycle of the window"},
		AllocBytes: nan, AllocBytesPerSecond: nan,
		HeapAllocBytes: nan, HeapGoalBytes: nan, LiveHeapBytes: nan, StackBytes: nan, GlobalsBytes: nan,
		GOGC: f.gogc, MemoryLimitBytes: f.limit, RSSBytes: f.rss, MaxRSSBytes: nan,
		Goroutines: nan, SchedLatencyP99MS: nan}
	if len(cycles) == 0 {
		k.GCCPU.Fraction, k.GCCPU.Low, k.GCCPU.High, k.GCCPU.Exact = 0, 0, 0, true
		k.GCCPU.From = "no cycle ended in the window"
		return k
	}
	var cpu, alloc float64
	var allocCycles int
	pauses := make([]float64, 0, len(cycles))
	for i, c := range cycles {
		if c.Forced {
			k.Forced++
		}
		cpu += c.CPU.SweepTerm + c.CPU.Scan + c.CPU.Sync + c.CPU.Assist + c.CPU.Background + c.CPU.MarkTerm
		pauses = append(pauses, c.PauseTotal())
		// What a cycle allocated: from the live heap the one before it
		// left to the heap at the end of its own marking.
		before := prev
		if i > 0 {
			before = &cycles[i-1]
		}
		if before != nil && before.HeapLive >= 0 && c.HeapEnd >= before.HeapLive {
			alloc += float64(c.HeapEnd-before.HeapLive) * (1 << 20)
			allocCycles++
		}
	}
	last := cycles[len(cycles)-1]
	if procs := last.Procs; procs > 0 {
		k.GOMAXPROCS = procs
		share := cpu / 1000 / (windowS * float64(procs))
		k.GCCPU.Fraction, k.GCCPU.Low, k.GCCPU.High, k.GCCPU.Exact = share, share, share, true
		k.GCCPU.From = "gctrace's CPU fields of the cycles that ended in the window, idle mark workers left out"
	}
	slices.Sort(pauses)
	k.Pauses.Count, k.Pauses.MaxMS = len(pauses), pauses[len(pauses)-1]
	k.Pauses.P50MS, k.Pauses.P99MS = pauses[(len(pauses)-1)/2], pauses[int(math.Ceil(0.99*float64(len(pauses))))-1]
	k.Pauses.TotalMS = 0
	for _, p := range pauses {
		k.Pauses.TotalMS += p
	}
	if allocCycles > 0 {
		// The first cycle of a program has no cycle before it: the
		// others stand for it.
		alloc *= float64(len(cycles)) / float64(allocCycles)
		k.AllocBytes, k.AllocBytesPerSecond = alloc, alloc/windowS
	}
	mib := func(v int64) float64 {
		if v < 0 {
			return nan
		}
		return float64(v) * (1 << 20)
	}
	k.HeapAllocBytes, k.HeapGoalBytes, k.LiveHeapBytes = mib(last.HeapEnd), mib(last.HeapGoal), mib(last.HeapLive)
	k.StackBytes, k.GlobalsBytes = mib(last.Stacks), mib(last.Globals)
	return k
}
