package pacer

import (
	"fmt"
	"math"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// GCCPUFraction returns a process's GC CPU as gcdoctor measures it and
// as Prediction.GCCPUFraction predicts it: the GC CPU time of all its
// cycles (gctrace.Cycle.GCCPU, every phase but idle marking, which only
// uses Ps that had nothing else to run) over the CPU available from the
// start of its first cycle to the end of its last, that wall time ×
// GOMAXPROCS of its last cycle. It is NaN when the log has no timestamps
// or a single instant. gctrace's own per-process figure
// (Summary.GCCPUPercent) charges each cycle to the interval until the
// next one and so leaves the last cycle out; the two agree within about
// one cycle's share, 1/Cycles.
func GCCPUFraction(s *gctrace.Summary) float64 {
	if !gctrace.Valid(s.WallS) || s.WallS <= 0 {
		return math.NaN()
	}
	return s.GCCPUMS / (s.WallS * 1000 * float64(max(s.Procs, 1)))
}

// How far the ranges of a prediction reach, and when the fit is too weak
// to give one. The thresholds come from the recorded benchmarks in
// testdata (docs/pacer.md, "Uncertainty", has the figures): each model was
// fitted on one run and held against every run of the other settings.
const (
	// A range of cycles is at least ±1/√n of the value for a fit on n
	// paced cycles, and at least ±10%: the median error of the cycle
	// count grows from 6% for fits on 50 or more paced cycles to 9% for
	// 20–49, 18% for 10–19 and 20% below 10.
	minCycleSpread = 0.10
	// The GC CPU range says it is wide when single cycles' cost scatters
	// around the cost line by more than half the mean cost (CostScatter):
	// below that the predicted GC CPU missed by a median of 16% (38% for
	// the worst tenth), above it by 34% (89%). R² does not separate the
	// two: the heap a program scans hardly varies from cycle to cycle.
	maxCostScatter = 0.5
	// Or when the cost level wanders through the run by more than this
	// (CostWander).
	maxCostWander = 0.25
	// Or when the fit has fewer paced cycles: their GC CPU predictions
	// missed by a median of 63%.
	minPacedForCPU = 10
	// cpuRangeSDs is how many of cpuSpread's standard deviations the GC
	// CPU range reaches on each side.
	cpuRangeSDs = 1.0
	// costDrift is how much the cost of a cycle changes from one setting
	// to another for reasons the log does not show (more marking on idle
	// Ps with longer runways, fewer assists): the GC CPU range adds it,
	// relative, to the scatter of single cycles and the uncertainty of
	// the cost line. With it the range holds 90% of the measured figures
	// where it is given.
	costDrift = 0.25
	// A model reproduces its log when its replay of the observed setting
	// is within 25% (or one cycle) of the log's cycles and GC CPU: on
	// every recorded benchmark it is within 18%; the logs it misses by
	// more ran under another setting than the one given, such as a GOGC
	// the program set itself.
	replayTolerance = 0.25
)

// PacedCycles returns the number of cycles in the log that the pacer
// started, the ones the pacing figures are fitted on.
func (m *Model) PacedCycles() int { return m.Cycles - m.Forced }

// LoggedCPUMS returns the GC CPU time of the cycles in the log, ms.
func (m *Model) LoggedCPUMS() float64 { return m.PacedCPUMS + m.ForcedCPUMS }

// CPUShare returns ms of GC CPU as a share of the CPU the log's wall time
// offered (WallS × Procs), as GCCPUFraction and Prediction.GCCPUFraction
// count it: CPUShare(LoggedCPUMS()) is the log's own GC CPU, and
// CPUShare(ReplayCPUMS) the model's for the recorded setting. NaN when the
// wall time is not known.
func (m *Model) CPUShare(ms float64) float64 {
	if !(m.WallS > 0) {
		return math.NaN()
	}
	return ms / (m.WallS * 1000 * float64(max(m.Procs, 1)))
}

// Reproduces reports whether the model, replaying the setting the log was
// recorded with, gives back the log's cycles and GC CPU within 25% (or
// one cycle). When it does not, the ranges of its predictions of cycles
// and GC CPU are withheld (NaN): a model that misses what it was fitted
// on cannot say how far it misses elsewhere.
func (m *Model) Reproduces() bool {
	logged := float64(m.Cycles)
	if math.Abs(m.ReplayCycles-logged) > math.Max(1, replayTolerance*logged) {
		return false
	}
	if c := m.LoggedCPUMS(); c > 0 && math.Abs(m.ReplayCPUMS-c) > replayTolerance*c {
		return false
	}
	return true
}

// GCCPURangeWithheld says why the GC CPU of a prediction comes without a
// range, as a caveat, or returns "" when it has one: only a model that
// does not give back its own log withholds it. A weak fit widens the range
// instead (GCCPURangeWide).
func (m *Model) GCCPURangeWithheld() string {
	if !m.Reproduces() {
		return "GC CPU range withheld: the model does not give back its own log (see above)"
	}
	return ""
}

// GCCPURangeWide says why the GC CPU range of a prediction is wide, as a
// caveat, or returns "" when the fit is steady enough for a narrow one:
// few paced cycles, single cycles far from the cost line, or a cost level
// that wanders through the run.
func (m *Model) GCCPURangeWide() string {
	r2 := ""
	if Valid(m.CostR2) {
		r2 = fmt.Sprintf(" (R² %.2f)", m.CostR2)
	}
	switch n := m.PacedCycles(); {
	case m.GCCPURangeWithheld() != "":
		return ""
	case n < minPacedForCPU:
		return fmt.Sprintf("GC CPU range widened to ×%.1f: %d paced cycles are too few to tell what a cycle would cost at another setting (%d or more make a narrower range)", math.Exp(cpuRangeSDs*m.cpuSpread(n)), n, minPacedForCPU)
	case !(m.CostScatter <= maxCostScatter):
		return fmt.Sprintf("GC CPU range widened: the cost of a cycle does not follow the heap it scans: single cycles scatter by ±%.0f%% of the mean cost around the fitted line%s, and its level wanders by ±%.0f%% through the run", m.CostScatter*100, r2, m.CostWander*100)
	case m.CostWander > maxCostWander:
		return fmt.Sprintf("GC CPU range widened: the cost of a cycle wanders by ±%.0f%% through the run (other work on the machine, or phases of the program), and may differ as much in another run", m.CostWander*100)
	}
	return ""
}

// cycleSpread is the smallest relative half-width of a range of cycles:
// 1/√n for a fit on n paced cycles, and at least minCycleSpread.
func (m *Model) cycleSpread() float64 {
	return math.Max(minCycleSpread, 1/math.Sqrt(float64(max(m.PacedCycles(), 1))))
}

// checkReplay replays the setting the log was recorded with, keeps the
// result (ReplayCycles, ReplayCPUMS), and states as caveats what the
// ranges of the predictions leave out and why.
func (m *Model) checkReplay() {
	sim := m.simulate(m.Observed, m.RunwayRatio, 0)
	m.ReplayCycles = float64(sim.paced + sim.forced)
	m.ReplayCPUMS = sim.cpuMS
	if !m.Reproduces() {
		// The weightiest caveat of all comes first.
		m.Caveats = append([]string{fmt.Sprintf("the model does not give back its own log: replaying %s it gives %.0f cycles and %s ms of GC CPU where the log has %d and %s ms, so the program was not paced as that setting paces it (it may set its own GOGC, as the Go compiler does, or run under another setting than the one given); the ranges of cycles and GC CPU are withheld",
			m.Observed, m.ReplayCycles, sig3(m.ReplayCPUMS), m.Cycles, sig3(m.LoggedCPUMS()))}, m.Caveats...)
		return
	}
	if n := m.PacedCycles(); n < 20 {
		m.Caveats = append(m.Caveats, fmt.Sprintf("only %d paced cycles: the fit is rough, and ranges of cycles are at least ±%.0f%%", n, m.cycleSpread()*100))
	}
	if why := m.GCCPURangeWide(); why != "" {
		m.Caveats = append(m.Caveats, why)
	}
}
