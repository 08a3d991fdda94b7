package pacer

import (
	"fmt"
	"math"
	"sort"
)

// Risk is how likely a setting is to drive the GC into a death spiral: the
// live heap so close to the memory limit that cycles run back to back.
type Risk uint8

// Risk levels, from none to high.
const (
	RiskNone   Risk = iota // no memory limit, or the limit never sets the goal
	RiskLow                // the limit sets the goal at times, with room to spare
	RiskMedium             // the limit leaves little runway: GC runs often and costs much more
	RiskHigh               // the live heap reaches the limit's heap share: back-to-back cycles, the CPU limiter, then a heap above the limit
)

var riskNames = [...]string{"none", "low", "medium", "high"}

// String returns the level's name, such as "medium".
func (r Risk) String() string {
	if int(r) < len(riskNames) {
		return riskNames[r]
	}
	return fmt.Sprintf("Risk(%d)", r)
}

// Range is an estimate with its uncertainty: the value and the low and high
// ends of its likely range, in the unit of the field that holds it.
type Range struct {
	Value, Low, High float64
}

// String formats the range as "v (lo–hi)" with %.3g.
func (r Range) String() string {
	return fmt.Sprintf("%.3g (%.3g–%.3g)", r.Value, r.Low, r.High)
}

// Prediction is what a Setting would do for the same work as the log the
// Model was fitted on: the same total allocation and the same live heap at
// the same point of the work.
type Prediction struct {
	Setting Setting

	// Cycles is the number of GC cycles, forced ones included.
	Cycles Range
	// PacedCycles is the number of cycles the pacer starts (Cycles less the
	// forced ones, which stay as in the log).
	PacedCycles Range
	// ForcedCycles is the number of cycles the program forces, as observed.
	ForcedCycles int

	// GCCPUMS is the GC CPU time, ms (idle marking excluded).
	GCCPUMS Range
	// GCCPUFraction is GCCPUMS over the observed wall time × GOMAXPROCS:
	// the wall time is assumed unchanged, although less GC usually makes
	// the program faster.
	GCCPUFraction Range
	// PeakHeap is the largest heap at the end of a cycle, bytes.
	PeakHeap Range
	// RSS estimates the peak resident memory, bytes: peak heap plus the
	// scavenger's 10% retained extra, stacks, globals and runtime
	// overhead (Model.RuntimeOverheadMiB), without the binary's text.
	RSS Range
	// GoalMiB is the median heap goal over the predicted cycles, MiB; +Inf
	// when no goal applies (GOGC=off without a limit).
	GoalMiB float64
	// LimitedCycles counts predicted cycles whose goal the memory limit set.
	LimitedCycles int

	Risk       Risk
	RiskReason string // why, as a sentence; "" for RiskNone

	Caveats []string // assumptions and warnings, as sentences
}

// simResult is one replay of the work.
type simResult struct {
	paced, forced int
	cpuMS         float64
	peakMiB       float64
	goals         []float64
	limited       int
	pinned        int
	minRunwayFrac float64 // smallest runway / scan over the cycles
}

// nonHeapSpreadMiB is the uncertainty of the non-heap memory estimate: the
// test binaries measured for it had 5.3–6.5 MiB with small heaps, and the
// GOMEMLIMIT runs of the accuracy set imply 5–7 MiB.
const nonHeapSpreadMiB = 1.5

// maxSimCycles bounds a replay: a setting that needs more cycles than this is
// in a death spiral anyway.
const maxSimCycles = 1_000_000

// simulate replays the observed work under s with runway ratio r.
func (m *Model) simulate(s Setting, r, extraNonHeap float64) simResult {
	var res simResult
	res.minRunwayFrac = math.Inf(1)
	x, live := 0.0, 0.0
	pi, fi := 0, 0 // next point and next forced cycle
	if m.keepFirst {
		live = m.points[0].live
		res.paced, res.cpuMS = 1, m.firstCPUMS
	}
	minStep := math.Max(m.MarkAllocMiB, 1.0/16)
	unmarked := 0.0 // floating garbage the observed cycles had and this one has not
	for n := 0; n < maxSimCycles; n++ {
		st, gl := m.rootsAt(x, &pi)
		goal := HeapGoal(m.GoMinor, s, Heap{Live: live, Stacks: st, Globals: gl}, m.nonHeap(limitMiB(s), st)+extraNonHeap)
		next := math.Inf(1)
		if !math.IsInf(goal.MiB, 1) {
			runway := goal.MiB - live
			var used float64
			used, unmarked = m.used(runway)
			used += (r - m.RunwayRatio) * runway
			next = x + math.Max(used, minStep)
			res.goals = append(res.goals, goal.MiB)
			if goal.Pinned {
				res.pinned++
			}
			res.minRunwayFrac = math.Min(res.minRunwayFrac, runway/(live+st+gl))
		}
		forced := fi < len(m.forcedAt) && m.forcedAt[fi] <= next
		if !forced && next >= m.endMiB {
			res.peakMiB = math.Max(res.peakMiB, live+m.endMiB-x)
			break
		}
		if forced {
			next = m.forcedAt[fi]
			fi++
			res.forced++
		} else {
			res.paced++
			if goal.Limited {
				res.limited++
			}
		}
		res.peakMiB = math.Max(res.peakMiB, live+next-x)
		x = next
		live = m.liveAt(x, &pi)
		if !forced {
			// The observed live heap includes what the observed cycles
			// allocated while marking (allocate-black: the runtime marks new
			// objects live until the next cycle); a shorter mark left less.
			live = math.Max(live-unmarked, 0)
			st, gl = m.rootsAt(x, &pi)
			res.cpuMS += m.CostFixedMS + m.CostPerMiBMS*(live+st+gl)
		}
		unmarked = 0
	}
	res.cpuMS += m.ForcedCPUMS
	return res
}

// used returns the allocation between the ends of two cycles when the goal
// allows a runway of a MiB (goal − live heap), and how much less the heap
// grew while the cycle marked than in the observed cycles, MiB.
//
// The pacer starts a cycle at its trigger, which it places one estimated
// mark phase's allocation before the goal (gcControllerState.trigger and
// commit: runway = consMark × 3 × scan work, a figure in bytes that does not
// depend on GOGC), bounded to 45/64–61/64 of the runway (or the goal minus
// 4 MiB). So when the runway grows the part left unused stays about the
// same number of bytes, and the observed shortfall is kept in MiB.
//
// When the runway shrinks, the trigger keeps its distance from the goal in
// bytes until that distance passes 19/64 of the runway; from there it
// stays at the lower bound, 45/64. How far the trigger sat from the goal
// depends on how fast the program allocates against how fast the GC
// marks: on an idle machine gcpacertrace shows cons/mark runways of
// 0.2–0.4 MiB for parser and png-encode and cycles starting at 0.88–0.98
// of their runways, while the same binaries sharing two CPUs with other
// work had runways of 1.4–2.3 MiB and started at the lower bound. The heap
// at the start of a cycle also lies above the trigger by the allocation
// that crossed it (OvershootMiB), which does not shrink with the runway: a
// program that allocates in 1 MiB buffers overshoots its trigger by about
// half a buffer at any GOGC, and with a 1 MiB runway that ends the cycle
// past its goal. Mark assists hold the allocation during the mark to the
// runway that is left, so it shrinks in proportion to the runway.
func (m *Model) used(a float64) (used, unmarked float64) {
	A := m.AllowedMiB
	if a >= A {
		return a - m.ShortfallMiB, 0
	}
	mark := A - m.ShortfallMiB - m.StartMiB // allocation while marking, at A
	// The observed trigger's distance from the goal, in MiB.
	before := A - (m.StartMiB - m.OvershootMiB)
	hi := math.Max(maxTriggerRatio*a, a-heapMinimumMiB)
	trigger := math.Min(math.Max(a-before, minTriggerRatio*a), hi)
	markAt := mark * a / A
	return trigger + m.OvershootMiB + markAt, mark - markAt
}

// liveAt interpolates the live heap at cumulative allocation x between the
// observed cycles; *pi is a search hint that only moves forward.
func (m *Model) liveAt(x float64, pi *int) float64 {
	i := m.seek(x, pi)
	if i == 0 {
		p := m.points[0]
		if p.x <= 0 {
			return p.live // a log that starts late: the replay starts there
		}
		return p.live * math.Min(x/p.x, 1)
	}
	if i >= len(m.points) {
		return m.points[len(m.points)-1].live
	}
	a, b := m.points[i-1], m.points[i]
	f := (x - a.x) / math.Max(b.x-a.x, 1e-9)
	return a.live + f*(b.live-a.live)
}

// rootsAt returns the stacks and globals at cumulative allocation x.
func (m *Model) rootsAt(x float64, pi *int) (stacks, globals float64) {
	i := min(m.seek(x, pi), len(m.points)-1)
	return m.points[i].stacks, m.points[i].globals
}

// seek returns the index of the first point at or after x.
func (m *Model) seek(x float64, pi *int) int {
	i := *pi
	for i < len(m.points) && m.points[i].x < x {
		i++
	}
	*pi = i
	return i
}

// nonHeap estimates the memory that counts against the limit but is not
// heap objects or free pages, MiB.
func (m *Model) nonHeap(limitMiB, stacks float64) float64 {
	base := m.RuntimeOverheadMiB + stacks
	if limitMiB <= base {
		return base
	}
	// The heap in use near the limit is about the limit's heap share,
	// (limit − base)/(1 + fragmentation).
	return base + fragmentation*(limitMiB-base)/(1+fragmentation)
}

// Predict replays the observed work under setting s. See Prediction for
// what it reports and docs/pacer.md for the equations and their measured
// accuracy.
func (m *Model) Predict(s Setting) Prediction {
	p := Prediction{Setting: s, ForcedCycles: m.Forced}
	if s.GOGC < 0 {
		s.GOGC = Off
		p.Setting.GOGC = Off
	}
	// The uncertainty of the runway ratio: two standard errors, but no
	// less than what the cycle counts of real programs missed by for a fit
	// on as many paced cycles (cycleSpread).
	d := math.Max(2*m.RunwayRatioSE, m.cycleSpread()*m.RunwayRatio)
	mid := m.simulate(s, m.RunwayRatio, 0)
	// With a memory limit the heap share also depends on non-heap memory,
	// which the log does not show: the range covers ±nonHeapSpreadMiB.
	spread := 0.0
	if s.MemoryLimit > 0 {
		spread = nonHeapSpreadMiB
	}
	lo := m.simulate(s, m.RunwayRatio+d, -spread) // a longer runway: fewer cycles
	hi := m.simulate(s, math.Max(m.RunwayRatio-d, 0.05), spread)

	// However steady the runway, a fit on few cycles misses by more
	// (cycleSpread).
	pc, sp := float64(mid.paced), m.cycleSpread()
	p.PacedCycles = Range{pc, math.Min(float64(lo.paced), math.Floor(pc*(1-sp))), math.Max(float64(hi.paced), math.Ceil(pc*(1+sp)))}
	f := float64(mid.forced)
	p.Cycles = Range{p.PacedCycles.Value + f, p.PacedCycles.Low + f, p.PacedCycles.High + f}
	p.ForcedCycles = mid.forced

	p.GCCPUMS = m.cpuRange(mid, lo, hi)
	// GC CPU over the wall time the log covers × GOMAXPROCS, as
	// GCCPUFraction measures it.
	p.GCCPUFraction = Range{m.CPUShare(p.GCCPUMS.Value), m.CPUShare(p.GCCPUMS.Low), m.CPUShare(p.GCCPUMS.High)}
	if !m.Reproduces() {
		nan := math.NaN()
		p.Cycles.Low, p.Cycles.High = nan, nan
		p.PacedCycles.Low, p.PacedCycles.High = nan, nan
	}
	const mib = 1 << 20
	p.PeakHeap = Range{mid.peakMiB * mib, math.Min(hi.peakMiB, mid.peakMiB) * mib, math.Max(lo.peakMiB, mid.peakMiB) * mib}
	rss := func(peak float64) float64 {
		return (peak*(1+retainExtra) + m.StacksMiB + m.GlobalsMiB + m.RuntimeOverheadMiB) * mib
	}
	p.RSS = Range{rss(p.PeakHeap.Value / mib), rss(p.PeakHeap.Low / mib), rss(p.PeakHeap.High / mib)}
	if s.MemoryLimit > 0 {
		// The scavenger returns memory to stay under the limit (it aims
		// at 95% of it, reduceExtraPercent), as long as the heap fits.
		for _, v := range []*float64{&p.RSS.Value, &p.RSS.Low, &p.RSS.High} {
			if *v > float64(s.MemoryLimit) && mid.pinned == 0 {
				*v = math.Max(float64(s.MemoryLimit), p.PeakHeap.Value)
			}
		}
	}
	p.GoalMiB = median(mid.goals)
	p.LimitedCycles = mid.limited

	// What limits the fit first, then what every prediction assumes.
	p.Caveats = append(p.Caveats, m.Caveats...)
	p.Caveats = append(p.Caveats,
		"the same work as the log is assumed: the same total allocation and the same live heap at the same point of it",
		"GC CPU as a fraction assumes the same wall time; less GC usually also shortens the run")
	if s.GOGC == Off && s.MemoryLimit == 0 {
		p.Caveats = append(p.Caveats, fmt.Sprintf("GOGC=off without GOMEMLIMIT never collects: the heap grows by everything the program allocates (%s here) and a long-running program runs out of memory", FormatSize(int64(m.AllocatedMiB*mib))))
	}
	if s.MemoryLimit > 0 {
		if m.GoMinor < 19 {
			p.Caveats = append(p.Caveats, fmt.Sprintf("GOMEMLIMIT needs Go 1.19; the program's Go 1.%d ignores it", m.GoMinor))
		}
		p.Caveats = append(p.Caveats, fmt.Sprintf("the limit's heap share assumes %.1f MiB of non-heap memory (stacks, runtime overhead%s, and %.0f%% of the heap for free space in partly used spans)", m.nonHeap(limitMiB(s), m.StacksMiB), rssSource(m), fragmentation*100))
	}
	if mid.paced < 5 && s.GOGC != Off {
		p.Caveats = append(p.Caveats, "fewer than 5 cycles predicted: one cycle more or less is a large relative change")
	}
	p.Risk, p.RiskReason = m.risk(s, mid, p)
	return p
}

// cpuRange is the GC CPU of a replay (mid) with its range: the CPU of
// the replays with fewer (lo) and more (hi) cycles, widened by a factor
// for what the log says of its cost's steadiness (cpuSpread). Low and High
// are NaN when the model does not reproduce its log (GCCPURangeWithheld).
func (m *Model) cpuRange(mid, lo, hi simResult) Range {
	if m.GCCPURangeWithheld() != "" {
		return Range{mid.cpuMS, math.NaN(), math.NaN()}
	}
	f := math.Exp(cpuRangeSDs * m.cpuSpread(mid.paced))
	paced := func(r simResult) float64 { return r.cpuMS - m.ForcedCPUMS }
	low := math.Min(paced(lo), paced(mid)) / f
	high := math.Max(paced(hi), paced(mid)) * f
	return Range{mid.cpuMS, m.ForcedCPUMS + low, m.ForcedCPUMS + high}
}

// cpuSpread is the relative standard deviation of the paced GC CPU of a
// prediction of n paced cycles, on a log scale: in quadrature, the change
// of a cycle's cost from one setting to another that the log cannot show
// (costDrift), the wandering of the cost level within the run, taken as
// its wandering from run to run (CostWander), and the scatter of single
// cycles, which averages out over n of them.
func (m *Model) cpuSpread(n int) float64 {
	single := m.CostScatter / math.Sqrt(float64(max(n, 1)))
	return math.Sqrt(costDrift*costDrift + m.CostWander*m.CostWander + single*single)
}

func limitMiB(s Setting) float64 { return float64(s.MemoryLimit) / (1 << 20) }

func rssSource(m *Model) string {
	if m.RuntimeOverheadMiB != nonHeapBaseMiB {
		return ", from the RSS given"
	}
	return ", a fixed estimate"
}

// risk judges how close a setting runs to a GC death spiral.
func (m *Model) risk(s Setting, sim simResult, p Prediction) (Risk, string) {
	if s.MemoryLimit <= 0 || m.GoMinor < 19 {
		return RiskNone, ""
	}
	limitMiB := float64(s.MemoryLimit) / (1 << 20)
	share := limitHeapGoal(limitMiB, m.nonHeap(limitMiB, m.StacksMiB), 0).MiB
	frac := p.GCCPUFraction.Value
	// Extrapolate a growing live heap to when it fills the heap share.
	grow := ""
	if Valid(m.LiveSlopeMiBPerS) && m.LiveSlopeMiBPerS > 0 && m.LiveR2 > 0.5 && m.LiveMaxMiB < share {
		t := (share - m.LiveMaxMiB) / m.LiveSlopeMiBPerS
		grow = fmt.Sprintf("; the live heap grows by %.2f MiB/s and would fill it in about %.0f s", m.LiveSlopeMiBPerS, t)
	}
	switch {
	case sim.pinned > 0 || m.LiveMaxMiB >= share:
		return RiskHigh, fmt.Sprintf("the live heap (up to %.0f MiB) reaches the limit's heap share (about %.0f MiB): cycles run back to back until the GC CPU limiter caps GC at about 50%% of the CPU (Go 1.19+), and then the heap grows past the limit", m.LiveMaxMiB, share)
	case Valid(frac) && frac >= 0.5:
		return RiskHigh, fmt.Sprintf("GC would take about %.0f%% of the CPU: the GC CPU limiter caps it at about 50%% and the heap then exceeds the limit", frac*100)
	case sim.minRunwayFrac < 0.25 || (Valid(frac) && frac >= 0.25):
		return RiskMedium, fmt.Sprintf("the limit leaves a runway of only %.0f%% of the scanned heap at the live-heap peak (like GOGC=%.0f), so GC runs often and its CPU cost climbs as the live heap nears %.0f MiB%s", sim.minRunwayFrac*100, sim.minRunwayFrac*100, share, grow)
	case sim.limited > 0 || grow != "":
		return RiskLow, fmt.Sprintf("the limit sets the goal in %d of %d cycles, with room to spare (heap share about %.0f MiB, live heap up to %.0f MiB)%s", sim.limited, sim.paced+sim.forced, share, m.LiveMaxMiB, grow)
	}
	return RiskNone, ""
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.Inf(1)
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
