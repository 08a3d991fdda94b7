package gctrace

import (
	"cmp"
	"math"
	"slices"

	"github.com/gcdoctor/gcdoctor/internal/quantile"
)

// Summary holds the key figures of one segment (one process run). Times are
// in the units their names say; heap sizes are MiB as the runtime prints
// them. A figure that the input cannot give (no timestamps before Go 1.5, a
// single cycle) is NaN in Go and null in JSON; see Valid.
type Summary struct {
	Cycles          int
	Forced          int // runtime.GC or debug.FreeOSMemory ("(forced)")
	Periodic        int // started by the 2-minute timer ("GC forced")
	FirstForcedLine int // line of the first forced cycle, 0 when none
	FirstGC         int // number of the first cycle seen
	LastGC          int // number of the last cycle seen
	Missing         int // cycles absent from the numbering between FirstGC and LastGC

	StartS      float64 // process time of the first cycle, s
	EndS        float64 // process time at the end of the last cycle, s
	WallS       float64 // EndS − StartS, s
	GCPerSecond float64 // cycles per second between the first and last cycle
	MaxGapS     float64 // longest time between two cycle starts, s
	MaxGapLine  int     // line of the cycle that ended the longest gap

	Pauses       int     // stop-the-world pauses
	PauseTotalMS float64 // sum of all pauses, ms
	P50PauseMS   float64
	P95PauseMS   float64
	P99PauseMS   float64
	MaxPauseMS   float64
	MaxPauseLine int // line of the cycle with the longest pause
	PausesApprox bool
	// LongSweepTerm and LongMarkTerm count pauses of 10 ms or more in
	// each stop-the-world phase (Go 1.5+); LongSTW counts whole-collection
	// pauses of 10 ms or more before Go 1.5. Which phase is slow points at
	// the cause.
	LongSweepTerm, LongMarkTerm, LongSTW int

	// GCCPUPercent is the share of the available CPU (wall time × P) that GC
	// took from the program between the first and the last cycle, computed
	// from the cycles' CPU fields, idle marking excluded.
	GCCPUPercent float64
	// IdleCPUPercent is the share of the available CPU used by idle mark
	// workers: CPU that nothing else wanted.
	IdleCPUPercent float64
	// RuntimeCPUPercent is the runtime's own figure printed on the last
	// cycle: GC CPU since the process started, whole percent; -1 if absent.
	RuntimeCPUPercent int
	// AssistPercent is mark assist's share of the mark CPU (assist,
	// background and idle): the part of marking that allocating goroutines
	// were made to do themselves.
	AssistPercent float64
	CPU           CPUTimes // totals over all cycles, ms
	GCCPUMS       float64
	MarkWallPct   float64 // share of wall time with marking running

	AllocMBPerS float64 // allocation rate from heap growth between cycles
	AllocatedMB float64 // allocation between the first and the last cycle start

	LiveFirstMB int64
	LiveLastMB  int64
	LiveMinMB   int64
	LiveMaxMB   int64
	// LiveMeanMB is the mean live heap over the cycles, MiB.
	LiveMeanMB float64
	// LiveMedianMB is the median live heap over the cycles the pacer
	// started, MiB (NaN when there were none): unlike the mean, one
	// cycle that counted much more live, as one whose marking ran long
	// does, or the forced cycles of a program starting up, do not move
	// it.
	LiveMedianMB float64
	LiveSlope    float64 // least-squares trend of the live heap
	LiveR2       float64 // goodness of that fit, 0..1
	PeakHeapMB   int64   // largest heap at the end of a cycle
	PeakHeapLine int
	PeakTotalMB  int64 // largest heap + stacks + globals
	MaxGoalMB    int64
	MinGoalMB    int64
	MaxStacksMB  int64 // -1 before Go 1.18
	MaxGlobalsMB int64 // -1 before Go 1.18

	OvershootCycles  int     // cycles whose heap ended above the goal
	MaxOvershootPct  float64 // largest (end − goal) / goal
	MaxOvershootLine int
	// BigOvershootCycles counts cycles that ended 10% or more above a goal
	// of at least 8 MiB, where rounding to whole MiB cannot fake it.
	BigOvershootCycles int
	// AtGoalCycles counts cycles whose live heap was at least 95% of their
	// goal: the goal left no room to allocate, as when a memory limit caps it.
	AtGoalCycles int
	// BackToBackCycles counts cycles that began less than one cycle duration
	// after the previous one ended: the GC was running more than idle.
	BackToBackCycles int
	// MinHeapCycles counts cycles whose goal was the minimum heap (4 MiB ×
	// GOGC/100): the live heap was too small to set the pace. Forced cycles
	// are not counted: the pacer did not start them.
	MinHeapCycles int

	Procs int // P count of the last cycle

	// ScanCycles counts the cycles followed by a "scan: total" line
	// (GODEBUG=gctrace=2, Go 1.26), and Scan sums those lines: the objects
	// the marks scanned, and how (see ScanCounts). ScanClasses sums the
	// lines of each size class under those totals, most objects first.
	ScanCycles  int
	Scan        ScanCounts
	ScanClasses []ClassScan
}

// ClassScan is what the marks of a segment scanned in one size class.
type ClassScan struct {
	// Class is the size class's object size in bytes, or LargeClass.
	Class int64
	ScanCounts
}

// DenseShare returns the share of the scanned objects that Green Tea
// scanned span by span with its vector kernel (dense spans), 0..1, and
// NaN when the log has no scan lines or they come from a build without
// Green Tea.
func (s *Summary) DenseShare() float64 {
	if s.ScanCycles == 0 || !s.Scan.GreenTea || s.Scan.Objects == 0 {
		return math.NaN()
	}
	return float64(s.Scan.SpanDense) / float64(s.Scan.Objects)
}

// SpanShare returns the share of the scanned objects that Green Tea
// scanned span by span, sparse or dense, 0..1; NaN as for DenseShare.
func (s *Summary) SpanShare() float64 {
	if s.ScanCycles == 0 || !s.Scan.GreenTea || s.Scan.Objects == 0 {
		return math.NaN()
	}
	return float64(s.Scan.SpanSparse+s.Scan.SpanDense) / float64(s.Scan.Objects)
}

// Valid reports whether v is a real figure rather than NaN ("not known").
func Valid(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// accum builds a Summary one cycle at a time in constant memory (apart from
// the pause quantiles, which are bounded too).
type accum struct {
	s        Summary
	pauses   quantile.Sample
	live     quantile.Sample // live heap of the paced cycles, MiB
	minHeap  int64           // MiB; goals at or below it count as the minimum heap
	hasTime  bool
	prev     Cycle
	havePrev bool

	// Per-interval sums: cycle i's costs over [At_i, At_i+1).
	intervalCPU  float64 // P-ms of wall in closed intervals
	gcCPU        float64 // GC CPU of cycles that closed an interval, ms
	idleCPU      float64
	markWall     float64 // concurrent wall of those cycles, ms
	allocMB      float64
	intervalWall float64 // s

	// Least squares of the live heap against time.
	n                          float64
	st, sy, stt, sty, syy, t0  float64
	lastUtil                   int
	sumLive, nLive             float64
	firstNum, lastNum, numSeen int

	// The scan lines of GODEBUG=gctrace=2: whether the last cycle had its
	// total line, and the sums per size class.
	prevScanned bool
	scanClasses map[int64]*ScanCounts
}

// maxScanClasses bounds the size classes summed from scan lines: the
// runtime has 68 and large objects, so more come from a corrupt log.
const maxScanClasses = 128

func newAccum(minHeapMB int64) *accum {
	a := &accum{minHeap: minHeapMB}
	a.s.RuntimeCPUPercent = -1
	a.s.LiveMinMB = math.MaxInt64
	a.s.MinGoalMB = math.MaxInt64
	a.s.MaxStacksMB, a.s.MaxGlobalsMB = -1, -1
	a.lastUtil = -1
	return a
}

// add counts one cycle into the summary.
func (a *accum) add(c *Cycle) {
	a.addCounts(c)
	a.addPauses(c)
	a.addCPU(c)
	a.addHeap(c)
	if c.HeapGoal >= 0 {
		a.addGoal(c)
	}
	if a.hasTime && c.HasAt && c.HeapLive >= 0 {
		a.addLivePoint(c)
	}
	if a.havePrev {
		a.addInterval(&a.prev, c)
	}
	a.prev = *c
	a.havePrev = true
	a.prevScanned = false
}

// addScan counts a scan line into the summary and, for a total line, into
// the last cycle. It reports whether the line belongs to that cycle: a
// total line must come once after the cycle line, and the class lines
// after the total.
func (a *accum) addScan(sc *Scan) bool {
	if !a.havePrev {
		return false
	}
	if sc.Class == 0 {
		if a.prevScanned {
			return false
		}
		a.prevScanned = true
		a.prev.HasScan, a.prev.Scan = true, sc.ScanCounts
		a.s.ScanCycles++
		a.s.Scan.Add(&sc.ScanCounts)
		return true
	}
	if !a.prevScanned {
		return false
	}
	cs := a.scanClasses[sc.Class]
	if cs == nil {
		if len(a.scanClasses) >= maxScanClasses {
			return true
		}
		if a.scanClasses == nil {
			a.scanClasses = make(map[int64]*ScanCounts)
		}
		cs = &ScanCounts{}
		a.scanClasses[sc.Class] = cs
	}
	cs.Add(&sc.ScanCounts)
	return true
}

// addCounts counts the cycle and what kind of cycle it was, and keeps
// what the first and the last cycle say.
func (a *accum) addCounts(c *Cycle) {
	s := &a.s
	if s.Cycles == 0 {
		s.FirstGC = c.Num
		s.StartS = c.At
		a.hasTime = c.HasAt
		a.t0 = c.At
		s.LiveFirstMB = c.HeapLive
	}
	s.Cycles++
	s.LastGC = c.Num
	if c.Forced {
		if s.Forced == 0 {
			s.FirstForcedLine = c.Line
		}
		s.Forced++
	}
	if c.Clock.SweepTerm >= 10 {
		s.LongSweepTerm++
	}
	if c.Clock.MarkTerm >= 10 {
		s.LongMarkTerm++
	}
	if c.Clock.STW >= 10 {
		s.LongSTW++
	}
	if c.Periodic {
		s.Periodic++
	}
	if c.Util >= 0 {
		a.lastUtil = c.Util
	}
	s.Procs = c.Procs
}

// addPauses adds the cycle's stop-the-world pauses.
func (a *accum) addPauses(c *Cycle) {
	s := &a.s
	p, np := c.Pauses()
	for _, v := range p[:np] {
		a.pauses.Add(v)
		if v > s.MaxPauseMS || s.MaxPauseLine == 0 {
			if v > s.MaxPauseMS {
				s.MaxPauseMS = v
			}
			s.MaxPauseLine = c.Line
		}
	}
}

// addCPU adds the cycle's CPU times.
func (a *accum) addCPU(c *Cycle) {
	s := &a.s
	s.CPU.SweepTerm += c.CPU.SweepTerm
	s.CPU.Scan += c.CPU.Scan
	s.CPU.Sync += c.CPU.Sync
	s.CPU.Assist += c.CPU.Assist
	s.CPU.Background += c.CPU.Background
	s.CPU.Idle += c.CPU.Idle
	s.CPU.MarkTerm += c.CPU.MarkTerm
	s.GCCPUMS += c.GCCPU()
}

// addHeap keeps the peaks of the heap, stacks and globals and the range
// of the live heap.
func (a *accum) addHeap(c *Cycle) {
	s := &a.s
	if c.HeapEnd > s.PeakHeapMB || s.PeakHeapLine == 0 {
		s.PeakHeapMB = max(s.PeakHeapMB, c.HeapEnd)
		s.PeakHeapLine = c.Line
	}
	total := c.HeapEnd + max(c.Stacks, 0) + max(c.Globals, 0)
	s.PeakTotalMB = max(s.PeakTotalMB, total)
	s.MaxStacksMB = max(s.MaxStacksMB, c.Stacks)
	s.MaxGlobalsMB = max(s.MaxGlobalsMB, c.Globals)
	if c.HeapLive >= 0 {
		a.sumLive += float64(c.HeapLive)
		a.nLive++
		if !c.Forced {
			a.live.Add(float64(c.HeapLive))
		}
		s.LiveLastMB = c.HeapLive
		s.LiveMinMB = min(s.LiveMinMB, c.HeapLive)
		s.LiveMaxMB = max(s.LiveMaxMB, c.HeapLive)
	}
}

// addGoal weighs the cycle against its heap goal: overshoot, a live heap
// at the goal, a goal at the minimum heap.
func (a *accum) addGoal(c *Cycle) {
	s := &a.s
	s.MaxGoalMB = max(s.MaxGoalMB, c.HeapGoal)
	s.MinGoalMB = min(s.MinGoalMB, c.HeapGoal)
	if c.HeapGoal > 0 && c.HeapEnd > c.HeapGoal {
		over := float64(c.HeapEnd-c.HeapGoal) / float64(c.HeapGoal) * 100
		s.OvershootCycles++
		if over >= 10 && c.HeapGoal >= 8 {
			s.BigOvershootCycles++
		}
		if over > s.MaxOvershootPct {
			s.MaxOvershootPct = over
			s.MaxOvershootLine = c.Line
		}
	}
	if c.HeapLive >= 0 && c.HeapGoal > 0 && float64(c.HeapLive) >= 0.95*float64(c.HeapGoal) {
		s.AtGoalCycles++
	}
	if c.HeapGoal <= a.minHeap && !c.Forced {
		s.MinHeapCycles++
	}
}

// addLivePoint adds the cycle's live heap to the least-squares sums of
// the live heap against time.
func (a *accum) addLivePoint(c *Cycle) {
	t := c.At - a.t0
	y := float64(c.HeapLive)
	a.n++
	a.st += t
	a.sy += y
	a.stt += t * t
	a.sty += t * y
	a.syy += y * y
}

// addInterval closes the interval from the previous cycle's start to this
// one's: cycles missing from the numbering, the gap between them, and the
// previous cycle's costs over the interval.
func (a *accum) addInterval(pr, c *Cycle) {
	s := &a.s
	if c.Num > pr.Num+1 {
		s.Missing += c.Num - pr.Num - 1
	}
	if !a.hasTime || !c.HasAt || !pr.HasAt {
		return
	}
	dt := c.At - pr.At
	if dt > s.MaxGapS {
		s.MaxGapS = dt
		s.MaxGapLine = c.Line
	}
	a.intervalWall += dt
	a.intervalCPU += dt * 1000 * float64(max(pr.Procs, 1))
	a.gcCPU += pr.GCCPU()
	a.idleCPU += pr.CPU.Idle
	a.markWall += pr.ConcurrentWall()
	if pr.HeapLive >= 0 {
		// Allocated during the previous cycle's mark phase, then
		// from its end (live heap) to this cycle's start.
		alloc := max(pr.HeapEnd-pr.HeapStart, 0) + max(c.HeapStart-pr.HeapLive, 0)
		a.allocMB += float64(alloc)
	}
	gapAfter := dt*1000 - pr.Wall()
	if gapAfter < pr.Wall() {
		s.BackToBackCycles++
	}
}

// finish computes the derived figures. The accumulator must not be used
// afterwards.
func (a *accum) finish() Summary {
	s := a.s
	nan := math.NaN()
	s.RuntimeCPUPercent = a.lastUtil
	if s.LiveMinMB == math.MaxInt64 {
		s.LiveMinMB, s.LiveMaxMB, s.LiveFirstMB, s.LiveLastMB = -1, -1, -1, -1
	}
	if s.MinGoalMB == math.MaxInt64 {
		s.MinGoalMB, s.MaxGoalMB = -1, -1
	}
	s.Pauses = a.pauses.N()
	s.PauseTotalMS = a.pauses.Sum()
	s.P50PauseMS = a.pauses.Quantile(0.50)
	s.P95PauseMS = a.pauses.Quantile(0.95)
	s.P99PauseMS = a.pauses.Quantile(0.99)
	s.PausesApprox = a.pauses.Approximate()
	s.LiveMedianMB = nan
	if a.live.N() > 0 {
		s.LiveMedianMB = a.live.Quantile(0.5)
	}
	for class, cs := range a.scanClasses {
		s.ScanClasses = append(s.ScanClasses, ClassScan{Class: class, ScanCounts: *cs})
	}
	slices.SortFunc(s.ScanClasses, func(x, y ClassScan) int {
		if x.Objects != y.Objects {
			return cmp.Compare(y.Objects, x.Objects)
		}
		return cmp.Compare(x.Class, y.Class)
	})
	mark := s.CPU.Assist + s.CPU.Background + s.CPU.Idle
	s.AssistPercent = nan
	if mark > 0 {
		s.AssistPercent = s.CPU.Assist / mark * 100
	}

	s.EndS, s.WallS, s.GCPerSecond, s.GCCPUPercent, s.IdleCPUPercent = nan, nan, nan, nan, nan
	s.MarkWallPct, s.AllocMBPerS, s.AllocatedMB = nan, nan, nan
	s.LiveSlope, s.LiveR2 = nan, nan
	s.LiveMeanMB = nan
	if a.nLive > 0 {
		s.LiveMeanMB = a.sumLive / a.nLive
	}
	if !a.hasTime {
		s.StartS, s.MaxGapS = nan, nan
	} else {
		s.EndS = a.prev.At + a.prev.Wall()/1000
		s.WallS = s.EndS - s.StartS
		if a.intervalWall > 0 {
			s.GCPerSecond = float64(s.Cycles-1) / a.intervalWall
			s.GCCPUPercent = a.gcCPU / a.intervalCPU * 100
			s.IdleCPUPercent = a.idleCPU / a.intervalCPU * 100
			s.MarkWallPct = a.markWall / (a.intervalWall * 1000) * 100
			if a.prev.HeapLive >= 0 {
				s.AllocatedMB = a.allocMB
				s.AllocMBPerS = a.allocMB / a.intervalWall
			}
		}
		if a.n >= 3 {
			den := a.n*a.stt - a.st*a.st
			if den > 0 {
				s.LiveSlope = (a.n*a.sty - a.st*a.sy) / den
				vy := a.n*a.syy - a.sy*a.sy
				if vy > 0 {
					r := (a.n*a.sty - a.st*a.sy) / math.Sqrt(den*vy)
					s.LiveR2 = r * r
				} else {
					s.LiveR2 = 0 // a flat live heap: no trend to explain
				}
			}
		}
	}
	return s
}
