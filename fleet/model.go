package fleet

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gcdoctor/gcdoctor/internal/goversion"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// Model is an instance's GC in steady state, as the pacer sees it: each
// cycle starts after the program has allocated a share of the runway the
// heap goal leaves above the live heap, and costs about the same CPU
// while the live heap stays the same. Package pacer fits the same terms
// from a gctrace's cycles; here they come from averages over the window:
//
//	runway(s)  = HeapGoal(s, live, stacks, globals) − live   (pacer.HeapGoal)
//	cycles/s   = allocation rate ÷ (RunwayRatio × runway(s))
//	GC cores   = cycles/s × CostPerCycle
//
// RunwayRatio is measured so that the observed setting reproduces the
// observed cycles: the bytes allocated per cycle over the runway the
// observed setting gives.
type Model struct {
	// Err says why no model could be fitted; the other fields are then
	// zero.
	Err string
	// GoMinor is the Go 1.x minor version the goal is computed for (0
	// when unknown: the current rules).
	GoMinor  int
	Observed pacer.Setting
	// The heap the goal is computed from, MiB, and the memory that counts
	// against a limit without holding heap objects (RSS less the heap in
	// use), MiB.
	LiveMiB, StacksMiB, GlobalsMiB, NonHeapMiB float64
	AllocMiBPerS                               float64
	// RunwayRatio is the share of the runway the program allocates per
	// cycle; CostPerCycle the GC CPU of one cycle, core-seconds, with its
	// range when the GC CPU is an estimate.
	RunwayRatio                     float64
	CostPerCycle, CostLow, CostHigh float64
	// ObservedCores is the GC CPU over the window, cores, and
	// ObservedGoalMiB the heap goal the observed setting gives, MiB.
	ObservedCores, ObservedGoalMiB float64
	observedLow, observedHigh      float64
	// limiterCores is what the GC CPU limiter lets the GC take when the
	// goal leaves no runway: half of GOMAXPROCS (+Inf when unknown).
	limiterCores float64
}

// runwaySpread is the uncertainty of the runway ratio: the 10% by which
// the pacer model's cycle counts missed at worst on real programs
// (pacer.Model.Predict, docs/accuracy.md).
const runwaySpread = 0.10

// minRunwayShare is the runway, as a share of the scanned heap, below
// which a memory limit drives the GC hard: the pacer's medium
// death-spiral risk (like a GOGC of 25).
const minRunwayShare = 0.25

// fit builds the instance's model, or says why it cannot.
func fit(in *Instance) *Model {
	m := &Model{GoMinor: goversion.Minor(in.GoVersion), Observed: pacer.Setting{GOGC: in.GOGC, MemoryLimit: in.MemoryLimit}}
	switch {
	case !known(in.GCCores):
		m.Err = "its GC CPU is unknown"
	case !(in.GCPerSecond > 0) || zeroNaN(in.GCPerSecond)*in.WindowS < gcCPUMinCycles:
		m.Err = "it ran fewer than 3 GC cycles in the window"
	case !(in.AllocBytesPerSec > 0):
		m.Err = "its allocation rate is unknown"
	case !(in.LiveBytes > 0):
		m.Err = "its live heap is unknown"
	}
	if m.Err != "" {
		return m
	}
	const mib = 1 << 20
	m.LiveMiB = in.LiveBytes / mib
	m.StacksMiB = zeroNaN(in.StacksBytes) / mib
	m.GlobalsMiB = zeroNaN(in.GlobalsBytes) / mib
	m.NonHeapMiB = m.StacksMiB
	if known(in.RSSMaxBytes) && known(in.HeapInuseBytes) && in.RSSMaxBytes > in.HeapInuseBytes {
		m.NonHeapMiB = (in.RSSMaxBytes - in.HeapInuseBytes) / mib
	}
	m.AllocMiBPerS = in.AllocBytesPerSec / mib
	goal := m.goal(m.Observed)
	runway := goal.MiB - m.LiveMiB
	if math.IsInf(goal.MiB, 1) || runway <= 0 {
		m.Err = "its heap goal leaves no runway above the live heap"
		return m
	}
	m.RunwayRatio = m.AllocMiBPerS / in.GCPerSecond / runway
	if m.RunwayRatio < 0.2 || m.RunwayRatio > 5 {
		m.Err = fmt.Sprintf("its cycles do not follow the heap goal (it allocates %s× the runway per cycle: forced GCs, or a setting that changed within the window)", fmtRatio(m.RunwayRatio))
		return m
	}
	m.CostPerCycle = in.GCCores / in.GCPerSecond
	m.CostLow = in.GCCoresLow / in.GCPerSecond
	m.CostHigh = in.GCCoresHigh / in.GCPerSecond
	m.ObservedCores, m.observedLow, m.observedHigh = in.GCCores, in.GCCoresLow, in.GCCoresHigh
	m.ObservedGoalMiB = goal.MiB
	m.limiterCores = math.Inf(1)
	if in.GOMAXPROCS > 0 {
		m.limiterCores = 0.5 * float64(in.GOMAXPROCS)
	}
	return m
}

func fmtRatio(v float64) string { return fmt.Sprintf("%.2g", v) }

func (m *Model) goal(s pacer.Setting) pacer.Goal {
	return pacer.HeapGoal(m.GoMinor, s, pacer.Heap{Live: m.LiveMiB, Stacks: m.StacksMiB, Globals: m.GlobalsMiB}, m.NonHeapMiB)
}

// Prediction is what a setting would do to one instance in steady state.
type Prediction struct {
	Setting pacer.Setting
	// GCCores is the GC CPU, cores, with its range.
	GCCores pacer.Range
	// GoalMiB is the heap goal, MiB (+Inf when nothing triggers a GC).
	GoalMiB float64
	// RSSMiB estimates the resident memory: the goal plus the scavenger's
	// retained 10% plus the non-heap memory.
	RSSMiB float64
	// Safe reports whether the setting keeps the GC out of a death spiral
	// and the memory within the limit; Why says why not.
	Safe bool
	Why  string
}

// Predict replays the instance's allocation under setting s.
func (m *Model) Predict(s pacer.Setting) Prediction {
	p := Prediction{Setting: s, Safe: true}
	g := m.goal(s)
	p.GoalMiB = g.MiB
	p.RSSMiB = g.MiB*1.10 + m.NonHeapMiB
	runway := g.MiB - m.LiveMiB
	scan := m.LiveMiB + m.StacksMiB + m.GlobalsMiB
	switch {
	case math.IsInf(g.MiB, 1):
		p.GCCores = pacer.Range{}
		p.Safe, p.Why = false, "GOGC=off without GOMEMLIMIT never collects: the heap grows until the process is killed"
		return p
	case g.Pinned || runway <= 0:
		// Back-to-back cycles until the GC CPU limiter steps in.
		c := m.limiterCores
		p.GCCores = pacer.Range{Value: c, Low: c, High: c}
		p.Safe, p.Why = false, "the limit leaves no room above the live heap: the GC would run back to back"
		return p
	}
	cycles := func(ratio float64) float64 { return m.AllocMiBPerS / (ratio * runway) }
	p.GCCores = pacer.Range{
		Value: cycles(m.RunwayRatio) * m.CostPerCycle,
		Low:   cycles(m.RunwayRatio*(1+runwaySpread)) * m.CostLow,
		High:  cycles(m.RunwayRatio*(1-runwaySpread)) * m.CostHigh,
	}
	if s.MemoryLimit > 0 {
		limit := float64(s.MemoryLimit) / (1 << 20)
		switch {
		case g.Limited && runway < minRunwayShare*scan:
			p.Safe, p.Why = false, fmt.Sprintf("the limit leaves a runway of only %.0f%% of the scanned heap (like GOGC=%.0f): GC would run often and near a death spiral", runway/scan*100, runway/scan*100)
		case p.RSSMiB > limit:
			p.Safe, p.Why = false, fmt.Sprintf("the heap goal (%.0f MiB) with the memory outside the heap (%.0f MiB) would not fit the %.0f MiB limit", g.MiB, m.NonHeapMiB, limit)
		}
	}
	return p
}

// JobTuning is the setting recommended for a job and what it would do to
// the job's instances that could be modelled.
type JobTuning struct {
	Job string
	// Current is the setting most of the job's instances run with;
	// Setting the recommended one (the same GOMEMLIMIT rule for every
	// instance, from the budget or their own limit).
	Current, Setting pacer.Setting
	// Budget is the memory budget per instance, bytes, and BudgetFrom
	// where it comes from; 0 when none is known: the advice is then the
	// cost in heap of a higher GOGC.
	Budget     int64
	BudgetFrom string
	// GCCores is the modelled instances' GC CPU now, Predicted under the
	// setting, Saved the difference, all in cores.
	GCCores, Predicted, Saved pacer.Range
	// GoalMiB is the modelled instances' heap goals now, summed, and
	// PredictedGoalMiB under the setting.
	GoalMiB, PredictedGoalMiB float64
	// Modelled counts the instances the model could be fitted to;
	// Unfitted says, per reason, how many could not.
	Modelled int
	Unfitted []string
	// Alternatives are the higher GOGC values tried when no budget is
	// known, with what each would save and cost.
	Alternatives []Alternative
	// Err says why no setting is recommended; the figures of the current
	// setting remain.
	Err string
}

// Alternative is one setting tried for a job.
type Alternative struct {
	Setting          pacer.Setting
	Saved            pacer.Range // cores
	PredictedGoalMiB float64     // summed over the modelled instances
}

// Savings sums what the jobs' recommended settings would save.
type Savings struct {
	// Saved is the GC CPU the recommended settings would save, cores;
	// Jobs counts the jobs with a recommendation.
	Saved pacer.Range
	Jobs  int
	// ExtraGoalMiB is the heap goal they would add across the fleet, MiB.
	ExtraGoalMiB float64
	// PerJob holds each job's tuning, in the order of Report.Jobs.
	PerJob []*JobTuning
}

// candidateGOGC are the GOGC values tried under a memory limit, as
// pacer.Recommend tries them; without a limit, only the higher values
// diagnose's tuning advice shows (200, 400, 800).
var (
	candidateGOGC    = []int{100, 150, 200, 300, 400, 600, 800, 1200, 1600, 2400, 3200, pacer.Off}
	alternativeGOGC  = []int{200, 400, 800}
	withinBestFactor = 1.10
)

// limitShare is the part of a memory budget given to GOMEMLIMIT, as
// pacer.Recommend gives it: 90% below 2 GiB and 95% above, in whole MiB,
// the rest being headroom for memory the runtime does not count.
func limitShare(budget int64) int64 {
	f := 0.90
	if budget >= 2<<30 {
		f = 0.95
	}
	l := int64(math.Round(float64(budget)*f/(1<<20))) << 20
	if l > budget*95/100 {
		l -= 1 << 20
	}
	return l
}

// Tune recommends a GOGC (and GOMEMLIMIT) per job and sums what it would
// save. With a budget (bytes per instance), GOMEMLIMIT is its share and
// GOGC the smallest candidate within 10% of the least GC CPU that is safe
// for every modelled instance of the job, as pacer.Recommend chooses for
// one process; instances that already run with a GOMEMLIMIT keep it as
// their budget. Without either, the advice is what GOGC 200, 400 and 800
// would save and what heap they would cost, and the first of them is
// counted as the job's recommendation.
func Tune(r *Report, budget int64) Savings {
	var sv Savings
	byJob := map[string][]*Instance{}
	for _, in := range r.Instances {
		byJob[in.Job] = append(byJob[in.Job], in)
	}
	for _, j := range r.Jobs {
		t := tuneJob(j.Name, byJob[j.Name], budget)
		j.Tuning = t
		sv.PerJob = append(sv.PerJob, t)
		if t.Err == "" && t.Modelled > 0 {
			sv.Jobs++
			sv.Saved.Value += t.Saved.Value
			sv.Saved.Low += t.Saved.Low
			sv.Saved.High += t.Saved.High
			sv.ExtraGoalMiB += t.PredictedGoalMiB - t.GoalMiB
		}
	}
	return sv
}

func tuneJob(name string, ins []*Instance, budget int64) *JobTuning {
	t := &JobTuning{Job: name}
	var ms []*Model
	reasons := map[string]int{}
	settings := map[pacer.Setting]int{}
	for _, in := range ins {
		settings[pacer.Setting{GOGC: in.GOGC, MemoryLimit: in.MemoryLimit}]++
		if in.Model == nil || in.Model.Err != "" {
			why := "not modelled"
			if in.Model != nil {
				why = in.Model.Err
			}
			reasons[why]++
			continue
		}
		ms = append(ms, in.Model)
	}
	t.Current = mostCommon(settings)
	limit := int64(0)
	switch {
	case budget > 0:
		t.Budget, t.BudgetFrom = budget, "--budget"
		limit = limitShare(budget)
	case t.Current.MemoryLimit > 0:
		t.Budget, t.BudgetFrom = t.Current.MemoryLimit, "the GOMEMLIMIT in force"
		limit = t.Current.MemoryLimit
	}
	for why, n := range reasons {
		t.Unfitted = append(t.Unfitted, fmt.Sprintf("%d: %s", n, why))
	}
	sort.Strings(t.Unfitted)
	t.Modelled = len(ms)
	if len(ms) == 0 {
		t.Err = "no instance of the job could be modelled"
		return t
	}
	for _, m := range ms {
		t.GCCores.Value += m.ObservedCores
		t.GCCores.Low += m.observedLow
		t.GCCores.High += m.observedHigh
		t.GoalMiB += m.ObservedGoalMiB
	}
	sum := func(s pacer.Setting) (pacer.Range, float64, string) {
		var cores pacer.Range
		var goal float64
		for _, m := range ms {
			p := m.Predict(s)
			if !p.Safe {
				return cores, goal, p.Why
			}
			cores.Value += p.GCCores.Value
			cores.Low += p.GCCores.Low
			cores.High += p.GCCores.High
			goal += p.GoalMiB
		}
		return cores, goal, ""
	}
	// A setting that raises the runway never costs more GC CPU: the
	// low end of a saving stops at zero where the ranges overlap.
	saved := func(c pacer.Range) pacer.Range {
		return pacer.Range{Value: t.GCCores.Value - c.Value, Low: math.Max(t.GCCores.Low-c.High, 0), High: t.GCCores.High - c.Low}
	}
	if limit == 0 {
		for _, g := range alternativeGOGC {
			if t.Current.GOGC < 0 || g <= t.Current.GOGC {
				continue
			}
			s := pacer.Setting{GOGC: g}
			c, goal, _ := sum(s)
			t.Alternatives = append(t.Alternatives, Alternative{Setting: s, Saved: saved(c), PredictedGoalMiB: goal})
		}
		if len(t.Alternatives) == 0 {
			t.Err = "GOGC is already 800 or more: with no memory budget known, no higher GOGC is advised"
			return t
		}
		a := t.Alternatives[0]
		t.Setting, t.Saved, t.PredictedGoalMiB = a.Setting, a.Saved, a.PredictedGoalMiB
		t.Predicted = pacer.Range{Value: t.GCCores.Value - a.Saved.Value, Low: t.GCCores.Low - a.Saved.High, High: t.GCCores.High - a.Saved.Low}
		return t
	}
	type cand struct {
		s     pacer.Setting
		cores pacer.Range
		goal  float64
	}
	var safe []cand
	var why string
	for _, g := range candidateGOGC {
		s := pacer.Setting{GOGC: g, MemoryLimit: limit}
		c, goal, w := sum(s)
		if w != "" {
			if why == "" {
				why = w
			}
			continue
		}
		safe = append(safe, cand{s, c, goal})
	}
	if len(safe) == 0 {
		t.Err = fmt.Sprintf("no setting is safe within GOMEMLIMIT=%s for every modelled instance: %s", pacer.GOMEMLIMIT(limit), why)
		return t
	}
	best := slices.MinFunc(safe, func(a, b cand) int {
		switch {
		case a.cores.Value < b.cores.Value:
			return -1
		case a.cores.Value > b.cores.Value:
			return 1
		}
		return 0
	})
	for _, c := range safe {
		if c.cores.Value <= best.cores.Value*withinBestFactor {
			t.Setting, t.Predicted, t.PredictedGoalMiB = c.s, c.cores, c.goal
			break
		}
	}
	t.Saved = saved(t.Predicted)
	return t
}

// mostCommon returns the most frequent key, the smallest on a tie.
func mostCommon[K comparable](m map[K]int) K {
	var best K
	n := -1
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b K) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	for _, k := range keys {
		if m[k] > n {
			best, n = k, m[k]
		}
	}
	return best
}
