package pacer

import (
	"fmt"
	"math"
	"sort"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// Options describe the run a log was recorded from. The zero value means
// GOGC=100, no memory limit, the Go version the log's format implies and an
// unknown RSS.
type Options struct {
	// GOGC is the run's GOGC: 0 means 100 (the default), Off means off.
	GOGC int
	// MemoryLimit is the run's GOMEMLIMIT in bytes; 0 means none.
	MemoryLimit int64
	// GoMinor is the Go 1.x minor version of the program; 0 takes it from
	// the log's line format (a Go 1.18+ format is taken as Go 1.21 or later,
	// where GOMEMLIMIT and the GC CPU limiter exist).
	GoMinor int
	// RSS is the program's peak resident set size in bytes, if known (from
	// /proc/PID/status VmHWM or a container's memory.peak). It replaces the
	// fixed estimate of non-heap memory in RSS predictions and memory-limit
	// goals.
	RSS int64
}

// Model is a program's garbage collector as seen in one process's gctrace:
// what it allocates and keeps, what a cycle costs and how the pacer spent
// the runway it was given. Sizes are MiB; a printed size n (which the
// runtime rounds down) is read as n + 0.5, or as 0.1 for stacks and globals
// printed as 0 (a small Go program has about 0.15 MiB of scannable globals
// and tens of KiB of scannable stacks); a live heap is narrowed further by
// the goal the next cycle prints (see liveEstimate).
type Model struct {
	GoMinor  int     // Go 1.x minor version assumed
	Procs    int     // GOMAXPROCS of the last cycle
	Observed Setting // the setting the log was recorded with

	Cycles int     // cycles in the log
	Forced int     // of which forced by the program (runtime.GC), which Predict keeps as they are
	WallS  float64 // wall time from the first cycle to the end of the last, s

	LiveMeanMiB      float64 // mean live heap after a cycle, MiB
	LiveMaxMiB       float64 // largest live heap after a cycle, MiB
	LiveSlopeMiBPerS float64 // least-squares trend of the live heap, MiB/s
	LiveR2           float64 // how well that line fits, 0..1
	StacksMiB        float64 // largest scannable stacks, MiB
	GlobalsMiB       float64 // largest scannable globals, MiB

	AllocatedMiB     float64 // allocation over the whole run, MiB (the runway used by every cycle, plus half a cycle's for the end of the run)
	AllocPerCycleMiB float64 // mean allocation between the ends of two paced cycles, MiB
	AllocRateMiBPerS float64 // AllocatedMiB over WallS, MiB/s
	MarkAllocMiB     float64 // mean allocation while a paced cycle marked, MiB

	// The GC CPU of a paced cycle (gctrace.Cycle.GCCPU: idle marking
	// excluded, as GCCPUFraction measures it) as CostFixedMS + CostPerMiBMS
	// × scan, where scan is the cycle's live heap plus stacks plus globals
	// in MiB: CostFixedMS is the mean CPU of the stop-the-world phases
	// (sweep termination and mark termination, wall time × GOMAXPROCS),
	// which every cycle pays, and CostPerMiBMS the assists' and background
	// workers' marking over the heap scanned, Σ(assist + background) /
	// Σscan (see costFit).
	CostFixedMS    float64 // ms per cycle
	CostPerMiBMS   float64 // ms per MiB scanned
	CostR2         float64 // share of the per-cycle variance the line explains, 0..1 (NaN when scan never varies)
	CostResidualMS float64 // standard deviation of a cycle's cost around the line, ms
	PacedCPUMS     float64 // GC CPU of the paced cycles, ms
	ForcedCPUMS    float64 // GC CPU of the forced cycles, ms
	// CostScatter is CostResidualMS over the mean cost of a paced cycle:
	// how far single cycles stray from the line, relative. Above 0.5 the
	// GC CPU range is widened and says so (GCCPURangeWide).
	CostScatter float64
	// CostWander is how far the cost level wanders within the run: the
	// paced cycles are cut into consecutive blocks (up to 8, of 5 cycles
	// or more), and CostWander is the relative standard deviation of each
	// block's cost over what the line gives it. Other work on the machine,
	// the program's phases and cache effects move the level for many
	// cycles at a time, and from one run to the next as much as within
	// one: the GC CPU range grows with it. With fewer than 10 paced cycles
	// it is CostScatter.
	CostWander float64

	// ReplayCycles and ReplayCPUMS are what the model gives for the
	// setting the log was recorded with (Predict(Observed) without
	// ranges), to hold against Cycles and LoggedCPUMS: see Reproduces.
	ReplayCycles float64
	ReplayCPUMS  float64 // ms

	// RunwayRatio is Σ(heap at the end of cycle − live heap of the cycle
	// before) over Σ(heap goal − live heap of the cycle before) over the
	// paced cycles: the share of the runway the goal allowed that the
	// program actually allocated before each cycle ended. Below 1 the
	// pacer's trigger (between 70% and 95% of the runway, or the goal minus
	// 4 MiB, in gcControllerState.trigger) and a short mark left runway
	// unused; above 1 the heap overshot the goal.
	RunwayRatio   float64
	RunwayRatioSD float64 // standard deviation of the per-cycle ratios
	RunwayRatioSE float64 // standard error of RunwayRatio
	// AllowedMiB is the mean runway the goal allowed a paced cycle, MiB,
	// and ShortfallMiB the mean part of it left unused (negative when the
	// heap overshot): AllowedMiB × (1 − RunwayRatio). Predict keeps the
	// shortfall in MiB for longer runways and in proportion for shorter
	// ones (docs/pacer.md, "Runway").
	AllowedMiB   float64
	ShortfallMiB float64
	// StartMiB is the mean heap growth from the live heap of the cycle
	// before to the start of a paced cycle, over the same cycles: where the
	// pacer triggered plus how far the allocation that crossed the trigger
	// went past it. The rest of the used runway, AllowedMiB − ShortfallMiB −
	// StartMiB, was allocated while the cycle marked.
	StartMiB float64
	// OvershootMiB is the part of StartMiB the heap grew past the trigger,
	// by the allocation that crossed it: about half the size of the
	// program's typical allocation at that moment, estimated from how much
	// the starts scatter (StartSDMiB) and never so large that the trigger
	// would lie below the pacer's lowest, 45/64 of AllowedMiB. The rest of
	// StartMiB is where the trigger sat. Predict keeps both the overshoot and
	// the trigger's distance from the goal in MiB when the runway shrinks
	// (docs/pacer.md, "Runway").
	OvershootMiB float64
	// StartSDMiB is the standard deviation of the cycles' starts around
	// StartMiB/AllowedMiB of each cycle's own runway, MiB.
	StartSDMiB float64

	// InferredGOGC is the GOGC that best explains the printed goals of the
	// cycles above the minimum heap (median), 0 when none is above it or the
	// goal is capped by a memory limit.
	InferredGOGC int

	// RuntimeOverheadMiB is the non-heap memory assumed besides stacks:
	// runtime metadata and other runtime structures (from Options.RSS when
	// given, else a fixed estimate; see nonHeapBaseMiB).
	RuntimeOverheadMiB float64

	Caveats []string // caveats on the fit, as sentences

	points   []point
	forcedAt []float64 // cumulative allocation at each forced cycle, MiB
	endMiB   float64   // cumulative allocation at the end of the work, MiB
	// keepFirst: the replay starts after the first cycle, a paced one that
	// it keeps as logged, at a cost of firstCPUMS (see startsLate).
	keepFirst  bool
	firstCPUMS float64
}

// point is one observed cycle, placed by cumulative allocation.
type point struct {
	x       float64 // cumulative allocation at the end of the cycle's mark, MiB
	live    float64 // MiB
	stacks  float64
	globals float64
}

// Memory that counts against GOMEMLIMIT but holds no heap objects, besides
// goroutine stacks: GC and span metadata, mcaches' partly used spans and
// other runtime structures. Go 1.26.8 test binaries on linux/amd64 outside
// the accuracy set (go/format BenchmarkFormat, go/printer
// BenchmarkPrintFile, html/template BenchmarkEscapedExecute, encoding/xml
// BenchmarkUnmarshal), run with GOGC=off and GOMEMLIMIT=10MiB or 14MiB,
// print heap goals and end their marks at heaps that leave 5.3–6.5 MiB
// (mean 5.8) for it with 2–8 MiB heaps, and about 4.5 MiB with an empty
// heap; runtime/metrics on a small program show 2.5 MiB of metadata and
// 0.6 MiB of other runtime memory at a 1 MiB heap, growing to about 1% of a
// large heap. The base below plus stacks and fragmentation gives 5.7–5.9
// MiB for those heaps. It cannot be read from a log without a limit, and
// varies by about a MiB from program to program (more small objects, more
// metadata and partly used spans): with a limit of a few times the live
// heap that is the largest uncertainty of a prediction.
const (
	nonHeapBaseMiB = 5.5
	// Free slots in partly used spans count as non-heap memory in
	// memoryLimitHeapGoal (they are neither heap objects nor free pages):
	// a few percent of the heap for programs whose objects are mostly of a
	// few sizes, more for very mixed sizes.
	fragmentation = 0.03
	// The scavenger keeps about 10% of memory above the heap goal mapped
	// (retainExtraPercent in runtime/mgcscavenge.go), so RSS sits above
	// the peak heap.
	retainExtra = 0.10
)

// fitPinned fits the runway figures of a log in which no paced cycle had
// a runway: the heap had reached the goal when each started, so there is
// no trigger to see, only what a cycle allocates while it marks. A longer
// runway is taken as used to the end, plus that allocation, which the
// heap then overshoots the goal by: RunwayRatio 1, ShortfallMiB the mean
// allocation per cycle, negative, and the spread of the ratio that of the
// allocation per cycle.
func (m *Model) fitPinned(used []float64) {
	var sum float64
	for _, u := range used {
		sum += u
	}
	mean := sum / float64(len(used))
	m.RunwayRatio = 1
	m.ShortfallMiB = -mean
	if mean > 0 {
		m.RunwayRatioSD = stddev(used) / mean
		m.RunwayRatioSE = m.RunwayRatioSD / math.Sqrt(float64(len(used)))
	}
	m.Caveats = append(m.Caveats, fmt.Sprintf("no cycle in the log had a runway: the heap was at its goal when each started (the goal pinned at the live heap, a GC death spiral if a memory limit set it), so the pacer's trigger is not seen; a longer runway is assumed used to the end, plus the %.1f MiB a cycle allocated while marking", mean))
}

// finish fits what does not depend on the runway: the cost line, the GOGC
// the goals imply, the non-heap memory, and the warnings on the fit.
func (m *Model) finish(opts Options, seg *gctrace.Segment, o *observations) {
	m.CostFixedMS, m.CostPerMiBMS, m.CostR2, m.CostResidualMS = costFit(o.scans, o.costs, o.fixed)
	if inferred := o.inferred; len(inferred) > 0 && m.Observed.MemoryLimit == 0 {
		sort.Float64s(inferred)
		m.InferredGOGC = int(math.Round(inferred[len(inferred)/2]))
	}
	m.RuntimeOverheadMiB = nonHeapBaseMiB
	if opts.RSS > 0 {
		// RSS = peak heap (plus the scavenger's extra) + stacks + globals +
		// runtime overhead; what is left after the known parts is overhead.
		peak := float64(seg.Summary.PeakHeapMB) + 0.5
		o := float64(opts.RSS)/(1<<20) - peak*(1+retainExtra) - m.StacksMiB - m.GlobalsMiB
		if o > 0 {
			m.RuntimeOverheadMiB = o
		} else {
			m.Caveats = append(m.Caveats, fmt.Sprintf("the RSS given (%s) is below the peak heap plus stacks and globals; it is ignored", FormatSize(opts.RSS)))
		}
	}

	if m.InferredGOGC > 0 && m.Observed.GOGC > 0 && relDiff(float64(m.InferredGOGC), float64(m.Observed.GOGC)) > 0.25 {
		m.Caveats = append(m.Caveats, fmt.Sprintf("the heap goals look like GOGC=%d, not the GOGC=%d given: predictions use the goals as printed, so they stand, but check the setting", m.InferredGOGC, m.Observed.GOGC))
	}
	if m.RunwayRatioSD > 0.5*m.RunwayRatio {
		m.Caveats = append(m.Caveats, fmt.Sprintf("the runway the program used varies a lot from cycle to cycle (ratio %.2f ± %.2f): its allocation is bursty", m.RunwayRatio, m.RunwayRatioSD))
	}
	if Valid(m.LiveSlopeMiBPerS) && m.LiveR2 > 0.5 && m.LiveSlopeMiBPerS*m.WallS > 0.5*m.LiveMeanMiB {
		m.Caveats = append(m.Caveats, fmt.Sprintf("the live heap grows by %.1f MiB/s over the run: predictions hold for the same work only, and a longer run needs more memory", m.LiveSlopeMiBPerS))
	}
	if n := m.PacedCycles(); n > 0 && m.PacedCPUMS > 0 {
		m.CostScatter = m.CostResidualMS / (m.PacedCPUMS / float64(n))
	}
	m.CostWander = m.costWander(o.scans, o.costs)
}

// costWander returns CostWander for the paced cycles' scans and costs,
// in the order they ran.
func (m *Model) costWander(scans, costs []float64) float64 {
	const maxBlocks, minBlock = 8, 5
	nb := min(maxBlocks, len(costs)/minBlock)
	if nb < 2 {
		return m.CostScatter
	}
	var ratios []float64
	for b := range nb {
		lo, hi := b*len(costs)/nb, (b+1)*len(costs)/nb
		var got, line float64
		for i := lo; i < hi; i++ {
			got += costs[i]
			line += m.CostFixedMS + m.CostPerMiBMS*scans[i]
		}
		if line > 0 {
			ratios = append(ratios, got/line)
		}
	}
	return stddev(ratios)
}

// liveEstimate reads the live heap of cycle i. The printed MiB (rounded
// down) says only that it lies in [n, n+1); when the GOGC formula set the
// next cycle's goal, the goal printed there (also rounded down) is
// live × (1 + GOGC/100) + (stacks + globals) × GOGC/100 and narrows that
// to a band about half as wide. Small heaps of a few MiB, where the runway
// is itself a few MiB, need it most: a live heap printed as 2 may be 2.0 or
// 2.9. Where the two ranges do not overlap (a goal moved by
// heapGoalInternal, or stacks and globals misjudged) the printed MiB
// stands alone.
func (m *Model) liveEstimate(cs []gctrace.Cycle, i int) float64 {
	c := &cs[i]
	lo, hi := float64(c.HeapLive), float64(c.HeapLive)+1
	if i+1 >= len(cs) || m.Observed.GOGC <= 0 || m.Observed.MemoryLimit > 0 {
		return (lo + hi) / 2
	}
	n := &cs[i+1]
	if n.HeapGoal < 0 || n.HeapGoal <= n.HeapStart {
		// The heap had reached the goal when the cycle started: the
		// runtime moved the goal just past it (heapGoalInternal keeps 64
		// KiB of runway), so the printed goal says nothing of the live heap.
		return (lo + hi) / 2
	}
	p := float64(m.Observed.GOGC) / 100
	sg := 0.0
	if m.GoMinor >= 18 || m.GoMinor == 0 {
		sg = (midSmall(c.Stacks) + midSmall(c.Globals)) * p
	}
	glo, ghi := (float64(n.HeapGoal)-sg)/(1+p), (float64(n.HeapGoal)+1-sg)/(1+p)
	if float64(n.HeapGoal) <= heapMinimumMiB*p {
		// The minimum heap may have set the goal: the formula's own goal
		// was at most the printed one.
		glo = math.Inf(-1)
	}
	if l, h := math.Max(lo, glo), math.Min(hi, ghi); l < h {
		lo, hi = l, h
	}
	return (lo + hi) / 2
}

// CostString states the fitted GC CPU cost of a cycle, such as "1.77 ms +
// 0.031 ms per MiB scanned", leaving out a term the fit held at zero.
func (m *Model) CostString() string {
	switch {
	case m.CostPerMiBMS == 0:
		return sig3(m.CostFixedMS) + " ms whatever the heap scanned"
	case m.CostFixedMS == 0:
		return sig3(m.CostPerMiBMS) + " ms per MiB scanned"
	}
	return sig3(m.CostFixedMS) + " ms + " + sig3(m.CostPerMiBMS) + " ms per MiB scanned"
}

// sig3 formats v with three significant digits, and whole above 100
// rather than with an exponent.
func sig3(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// Valid reports whether v is a real number rather than NaN or an infinity.
func Valid(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// mid reads a printed heap size (whole MiB, rounded down) as the middle of
// the MiB it stands for.
func mid(v int64) float64 { return float64(v) + 0.5 }

// midSmall reads printed stacks and globals; 0 usually stands for a small
// fraction of a MiB, and -1 (not printed before Go 1.18) for nothing.
func midSmall(v int64) float64 {
	switch {
	case v < 0:
		return 0
	case v == 0:
		return 0.1
	}
	return float64(v) + 0.5
}

func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-9) }

func stddev(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	var s, ss float64
	for _, x := range v {
		s += x
	}
	mean := s / float64(len(v))
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss / float64(len(v)-1))
}

// costFit splits a cycle's GC CPU into what every cycle pays whatever
// it scans, the stop-the-world phases (fixed, gctrace's sweep-termination
// and mark-termination CPU), and the marking done by assists and the
// background workers, which is taken as proportional to the heap scanned:
// its total over the total scanned. It returns the line's intercept and
// slope, its R² and the residuals' standard deviation; the line gives
// back Σcosts at the scans it was fitted on.
func costFit(scans, costs, fixed []float64) (a, b, r2, sd float64) {
	var sf, sc, ss, scc float64
	for i := range scans {
		sf += fixed[i]
		sc += costs[i]
		ss += scans[i]
		scc += costs[i] * costs[i]
	}
	n := float64(len(scans))
	if n == 0 {
		return 0, 0, math.NaN(), 0
	}
	a = sf / n
	if ss > 0 {
		b = math.Max(sc-sf, 0) / ss
	}
	if vy := scc - sc*sc/n; vy > 0 {
		var res float64
		for i := range scans {
			d := costs[i] - a - b*scans[i]
			res += d * d
		}
		r2 = math.Max(1-res/vy, 0)
	} else {
		r2 = math.NaN()
	}
	return a, b, r2, stddevAround(scans, costs, a, b)
}

func stddevAround(xs, ys []float64, a, b float64) float64 {
	if len(xs) < 3 {
		return 0
	}
	var ss float64
	for i := range xs {
		d := ys[i] - (a + b*xs[i])
		ss += d * d
	}
	return math.Sqrt(ss / float64(len(xs)-2))
}
