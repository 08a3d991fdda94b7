package pacer

import (
	"fmt"
	"math"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// Fit builds a Model from one segment's cycles, which must have been kept
// (gctrace.Options.KeepCycles). Forced cycles do not enter the pacing
// figures but their cost is counted. It needs cycles with heap sizes and
// timestamps (Go 1.5+) and at least three paced ones.
//
// It reads the log in three steps: newModel takes the run's setting and
// Go version, observe walks the cycles once and collects what each says
// about the program's allocation, the runway its goal allowed and what it
// cost, and then either fitRunway or, for a log with no runway to see,
// fitPinned turns that into the pacing figures before finish fits the
// cost line and states the caveats.
func Fit(seg *gctrace.Segment, opts Options) (*Model, error) {
	m, where, err := newModel(seg, opts)
	if err != nil {
		return nil, err
	}
	o, err := m.observe(seg.Cycles)
	if err != nil {
		return nil, err
	}
	// A process in a death spiral under a memory limit has its goal pinned
	// at the live heap: every cycle starts at once, and what it allocates
	// while marking is all there is to measure.
	pinned := len(o.ratios) < 3 && len(o.pinnedUsed) >= 3
	if len(o.ratios) < 3 && !pinned {
		n := fmt.Sprintf("%d cycles", m.Cycles)
		if m.Cycles == 1 {
			n = "1 cycle"
		}
		return nil, fmt.Errorf("%s: %s (%d forced by the program, %d paced with a heap goal): the model needs at least 3 paced cycles with heap goals", where, n, m.Forced, len(o.ratios)+len(o.pinnedUsed))
	}
	m.fitAllocation(seg, o)
	if pinned {
		m.fitPinned(o.pinnedUsed)
	} else {
		m.fitRunway(o)
	}
	m.finish(opts, seg, o)
	m.checkReplay()
	return m, nil
}

// newModel checks that the segment can be fitted and fills in what the
// options and the log's format say about the run. where is the line the
// segment starts at, for errors.
func newModel(seg *gctrace.Segment, opts Options) (m *Model, where string, err error) {
	if seg == nil {
		return nil, "", fmt.Errorf("fit: no segment")
	}
	// Callers name the input; the error says where in it the process
	// the model was asked of starts.
	cs := seg.Cycles
	if len(cs) == 0 {
		return nil, "", fmt.Errorf("segment %d: no cycles kept (parse with KeepCycles)", seg.Index)
	}
	where = fmt.Sprintf("line %d", cs[0].Line)
	if cs[0].HeapLive < 0 || !cs[0].HasAt {
		return nil, where, fmt.Errorf("%s: the %s format has no live heap or timestamps to fit", where, cs[0].Format)
	}
	m = &Model{
		GoMinor: opts.GoMinor,
		Procs:   max(cs[len(cs)-1].Procs, 1),
		Cycles:  len(cs),
		// The cycles kept, which the model sees, and the time they cover:
		// on a log longer than the parser keeps, the two stay paired.
		WallS: seg.CyclesWallS(),
	}
	m.Observed = Setting{GOGC: opts.GOGC, MemoryLimit: opts.MemoryLimit}
	if opts.GOGC == 0 {
		m.Observed.GOGC = 100
	}
	if m.GoMinor == 0 {
		lo, _ := cs[0].Format.MinorRange()
		m.GoMinor = max(lo, 0)
		if cs[0].Format == gctrace.FormatGo118 {
			m.GoMinor = 21
		}
	}
	if seg.CyclesTruncated {
		m.Caveats = append(m.Caveats, "the log has more cycles than were kept: the model sees only the first ones")
	}
	return m, where, nil
}

// observations is what one pass over a log's cycles collects for the fit.
type observations struct {
	x        float64 // cumulative allocation at the end of the last cycle, MiB
	liveSum  float64 // Σ live heap over all cycles, MiB
	inferred []float64
	// Over the paced cycles.
	nPaced       int
	sumUsedPaced float64 // Σ allocation between the ends of two cycles, MiB
	markAlloc    float64 // Σ allocation while marking, MiB
	scans, costs []float64
	fixed        []float64 // per paced cycle: GC CPU outside the marking that assists and background workers do, ms
	// Over the paced cycles that had a runway (the goal above the live
	// heap of the cycle before).
	usedSum, allowedSum float64
	startSum            float64
	ratios              []float64
	starts, allows      []float64 // per cycle, for StartSDMiB
	// What the paced cycles with no runway allocated.
	pinnedUsed []float64
}

// observe walks the cycles once: it places each by cumulative allocation
// (Model.points), counts the forced ones and their cost, and collects the
// paced ones' cost and runway.
func (m *Model) observe(cs []gctrace.Cycle) (*observations, error) {
	o := &observations{}
	prevLive := 0.0
	for i := range cs {
		c := &cs[i]
		if c.HeapLive < 0 || c.HeapEnd < 0 {
			return nil, fmt.Errorf("line %d has no heap sizes", c.Line)
		}
		live := m.liveEstimate(cs, i)
		p := point{live: live, stacks: midSmall(c.Stacks), globals: midSmall(c.Globals)}
		used := math.Max(mid(c.HeapEnd)-prevLive, 0)
		if i == 0 {
			used = mid(c.HeapEnd) // the heap was empty when the process started
			if why := m.startsLate(c); why != "" {
				// The heap the first cycle found was not allocated under
				// the setting the log was recorded with: the replay starts
				// from where that cycle left the heap, and keeps it.
				used = 0
				m.Caveats = append(m.Caveats, why)
				if !c.Forced {
					m.keepFirst, m.firstCPUMS = true, c.GCCPU()
				}
			}
		}
		o.x += used
		p.x = o.x
		m.points = append(m.points, p)
		o.liveSum += live
		m.LiveMaxMiB = max(m.LiveMaxMiB, live)
		m.StacksMiB = max(m.StacksMiB, p.stacks)
		m.GlobalsMiB = max(m.GlobalsMiB, p.globals)
		if c.Forced {
			m.Forced++
			m.ForcedCPUMS += c.GCCPU()
			m.forcedAt = append(m.forcedAt, o.x)
		} else {
			m.PacedCPUMS += c.GCCPU()
			o.scans = append(o.scans, live+p.stacks+p.globals)
			o.costs = append(o.costs, c.GCCPU())
			o.fixed = append(o.fixed, c.GCCPU()-c.CPU.Assist-c.CPU.Background)
			o.markAlloc += math.Max(float64(c.HeapEnd-c.HeapStart), 0)
			if i > 0 && c.HeapGoal >= 0 {
				m.observeRunway(o, c, m.points[i-1], prevLive, used)
			}
			o.sumUsedPaced += used
			o.nPaced++
		}
		prevLive = live
	}
	return o, nil
}

// startsLate says why the replay cannot start from an empty heap, as a
// caveat, or returns "": the log begins after the process's first cycle
// (an excerpt, or a log collected from a running process), or its first
// cycle's goal is far above what the setting gives an empty heap (the
// minimum heap, 4 MiB × GOGC/100), as when the program sets its own GOGC
// at start-up (the Go compiler raises it until its heap reaches about 64
// MiB).
func (m *Model) startsLate(c *gctrace.Cycle) string {
	if c.Num > 1 {
		return fmt.Sprintf("the log starts at cycle %d, after the process had run for a while: the replay starts from the heap that cycle left and keeps it as logged", c.Num)
	}
	if c.HeapGoal < 0 || c.HeapGoal <= c.HeapStart {
		// No goal printed, or one the runtime moved just past a heap that
		// one large allocation had taken past the goal: neither says what
		// GOGC the program ran with.
		return ""
	}
	g := HeapGoal(m.GoMinor, m.Observed, Heap{Stacks: midSmall(c.Stacks), Globals: midSmall(c.Globals)}, 0)
	if math.IsInf(g.MiB, 1) || float64(c.HeapGoal) <= math.Max(2*g.MiB, g.MiB+2) {
		return ""
	}
	return fmt.Sprintf("the first cycle's goal (%d MiB) is not what %s gives an empty heap (%.0f MiB): the program or its environment set another GOGC at start-up; the replay starts from the heap that cycle left and keeps it as logged", c.HeapGoal, m.Observed, g.MiB)
}

// observeRunway adds a paced cycle c with a printed goal to the runway
// figures: what the goal allowed after the cycle before (prev, whose live
// heap is prevLive), and what the program used of it.
func (m *Model) observeRunway(o *observations, c *gctrace.Cycle, prev point, prevLive, used float64) {
	// The runway the goal allowed, with the goal the runtime computes
	// (HeapGoal) when the printed one agrees with it: a printed goal is
	// rounded down, and at the minimum heap it is exact, so the midpoint
	// would be half a MiB off there. Predict uses the same function, so
	// the ratio carries over. When the heap had passed the goal before the
	// cycle started (one large allocation across the trigger), the runtime
	// printed a goal moved just past the heap, not the one GOGC set: the
	// runway GOGC allowed is the formula's, and the heap overshot it.
	goal := mid(c.HeapGoal)
	gf := HeapGoal(m.GoMinor, m.Observed, Heap{Live: prevLive, Stacks: prev.stacks, Globals: prev.globals}, 0)
	if !math.IsInf(gf.MiB, 1) && math.Abs(math.Floor(gf.MiB)-float64(c.HeapGoal)) <= 1 {
		goal = gf.MiB
	} else if !math.IsInf(gf.MiB, 1) && gf.MiB < goal && c.HeapGoal <= c.HeapStart {
		goal = gf.MiB
	}
	allowed := goal - prevLive
	if allowed > 0.5 {
		o.usedSum += used
		o.allowedSum += allowed
		o.ratios = append(o.ratios, used/allowed)
		start := math.Min(mid(c.HeapStart)-prevLive, used)
		o.startSum += start
		o.starts = append(o.starts, start)
		o.allows = append(o.allows, allowed)
	} else {
		o.pinnedUsed = append(o.pinnedUsed, used)
	}
	// The GOGC that explains this goal, if the minimum heap did not set
	// it.
	if den := prevLive + prev.stacks + prev.globals; den > 0 && m.GoMinor >= 18 {
		g := (mid(c.HeapGoal) - prevLive) / den * 100
		if mid(c.HeapGoal) > heapMinimumMiB*g/100+1 {
			o.inferred = append(o.inferred, g)
		}
	}
}

// fitAllocation sets the live-heap and allocation figures.
func (m *Model) fitAllocation(seg *gctrace.Segment, o *observations) {
	m.LiveMeanMiB = o.liveSum / float64(m.Cycles)
	m.LiveSlopeMiBPerS = seg.Summary.LiveSlope
	m.LiveR2 = seg.Summary.LiveR2
	m.AllocPerCycleMiB = o.sumUsedPaced / float64(o.nPaced)
	// The run goes on after its last cycle, for on average half a cycle's
	// allocation: the log cannot tell how much.
	m.endMiB = o.x + m.AllocPerCycleMiB/2
	m.AllocatedMiB = m.endMiB
	if m.WallS > 0 {
		m.AllocRateMiBPerS = m.AllocatedMiB / m.WallS
	}
	m.MarkAllocMiB = o.markAlloc / float64(max(o.nPaced, 1))
}

// fitRunway sets the runway figures from the paced cycles that had a
// runway: how much of it the program used, where the cycles started, and
// how much of the start was the allocation that crossed the trigger.
func (m *Model) fitRunway(o *observations) {
	n := float64(len(o.ratios))
	m.RunwayRatio = o.usedSum / o.allowedSum
	m.AllowedMiB = o.allowedSum / n
	m.ShortfallMiB = (o.allowedSum - o.usedSum) / n
	m.StartMiB = o.startSum / n
	// A cycle starts with the first allocation that takes the heap past
	// the trigger, so the heap lands anywhere up to one allocation past
	// it: with allocations of about c MiB the overshoot is spread evenly
	// over [0, c), its mean c/2 and its standard deviation c/√12, so the
	// mean is √3 standard deviations. A program of small objects starts
	// every cycle at the same printed MiB and has none; one that allocates
	// 2 MB buffers scatters by about 0.5 MiB.
	share := m.StartMiB / m.AllowedMiB
	resid := make([]float64, len(o.starts))
	for i := range o.starts {
		resid[i] = o.starts[i] - share*o.allows[i]
	}
	m.StartSDMiB = stddev(resid)
	m.OvershootMiB = math.Min(math.Sqrt(3)*m.StartSDMiB, math.Max(m.StartMiB-minTriggerRatio*m.AllowedMiB, 0))
	m.RunwayRatioSD = stddev(o.ratios)
	m.RunwayRatioSE = m.RunwayRatioSD / math.Sqrt(n)
}
