package diagnose

import (
	"fmt"
	"math"
	"slices"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// Thresholds of gogc-headroom: the peak heap against the live heap, the
// memory beyond what the default GOGC would hold, and the share of a
// budget.
const (
	headroomMinRatio     = 4    // peak heap ≥ 4 × the live heap
	headroomMinExtraMiB  = 64   // and ≥ 64 MiB above 2 × the live heap
	headroomBudgetShare  = 0.5  // or the peak ≥ half the budget …
	headroomBudgetExtra  = 0.1  // … with a tenth of it above 2 × live
	headroomBudgetWarn   = 0.8  // a warning from 80% of the budget
	headroomLimitOfLimit = 0.9  // a GOMEMLIMIT leaves 10% of a budget free
	headroomGiveBackPart = 0.5  // a suggested limit gives back half the extra at least
	headroomRoundMiB     = 16.0 // suggested limits are rounded up to 16 MiB
)

func init() {
	register(&Rule{
		ID:       "gogc-headroom",
		Title:    "A high GOGC pays for its GC savings with memory",
		Severity: Info,
		Rank:     90,
		Evidence: "gctrace, GOGC and GOMEMLIMIT of the run, memory budget",
		Rationale: `GOGC sets the heap goal at the live heap × (1 + GOGC/100): GOGC=1000
lets the heap grow to 11 times what is live before a cycle starts. The GC
runs ten times less often than at the default, and the program pays for it
in memory: a peak heap, and a resident set, many times its live data. That
is a fair trade when the memory is there; with no GOMEMLIMIT nothing stops
the same setting from taking a container past its limit when the live heap
grows. GOMEMLIMIT (Go 1.19) keeps most of the saving while the heap is
small and caps it when it is not.`,
		Detection: `A process run with GOGC above 100 (from its environment, or, in a log
alone, the goals against the live heap) and no GOMEMLIMIT, whose peak heap
is at least 4× its median live heap and at least 64 MiB above twice it (what
GOGC=100 would hold); or, with a memory budget (--budget, or the
cgroup limit a bundle recorded), whose peak heap or peak RSS is at least
half the budget with a tenth of the budget above twice the live heap (a
warning from 80%). The pacer model, fitted to the process, says what the
GOGC saves and what a GOMEMLIMIT would give back.`,
		Remedy: `Keep the GOGC and add a GOMEMLIMIT: the heap then stays under the limit
and the GC runs as rarely as the GOGC allows below it. With a budget,
leave at least 10% of it free. Or lower GOGC, if the GC CPU it saves is
small.`,
		Verify: `Rerun with the GOMEMLIMIT and compare: peak RSS and peak heap should
fall, GC CPU stay close to what the high GOGC gave.`,
		Versions: `GOMEMLIMIT needs Go 1.19; before it, only a lower GOGC (or a heap
ballast) bounds the heap.`,
		check: checkHeadroom,
	})
}

func checkHeadroom(c *evidenceView, s *gctrace.Segment) *Finding {
	sm := &s.Summary
	if sm.Cycles < 2 || sm.LiveMaxMB <= 0 || sm.PeakHeapMB <= 0 || c.memoryLimitSet() {
		return nil
	}
	gogc, known := c.gogc, c.gogcKnown || c.off
	if !known {
		gogc = inferGOGC(s)
	}
	if !c.off && gogc <= 100 {
		return nil
	}
	// The median live heap of the paced cycles, not the largest: a cycle
	// whose marking ran long on a busy machine counts what was allocated
	// meanwhile as live, and one such cycle would otherwise hide the
	// trade. Nor the mean, which the forced cycles of a program starting
	// up, with nothing live yet, pull down.
	live, peak := float64(sm.LiveMaxMB), float64(sm.PeakHeapMB)
	if gctrace.Valid(sm.LiveMedianMB) && sm.LiveMedianMB > 0 {
		live = math.Max(sm.LiveMedianMB, 1)
	}
	extra := peak - math.Max(2*live, 4)
	budget, budgetFrom := c.budget()
	ratioFires := peak >= headroomMinRatio*live && extra >= headroomMinExtraMiB
	used := peak * (1 << 20)
	if rss := float64(c.in.PeakRSS); rss > used {
		used = rss
	}
	budgetShare := 0.0
	if budget > 0 {
		budgetShare = used / float64(budget)
	}
	budgetFires := budget > 0 && budgetShare >= headroomBudgetShare && extra*(1<<20) >= headroomBudgetExtra*float64(budget)
	if !ratioFires && !budgetFires {
		return nil
	}

	setting := "GOGC=off"
	if !c.off {
		setting = fmt.Sprintf("GOGC=%d", gogc)
	}
	if !known {
		setting = fmt.Sprintf("a GOGC of about %d (from its heap goals)", gogc)
	}
	f := &Finding{Severity: Info, score: extra}
	if budgetFires && budgetShare >= headroomBudgetWarn {
		f.Severity = Warning
	}
	f.Message = fmt.Sprintf("With %s, the heap of %s peaked at %s for a median live heap of %s (%s×, at most %s): %s more than GOGC=100 would hold.",
		setting, who(s), mb(sm.PeakHeapMB), mb(int64(math.Round(live))), f1(peak/live), mb(sm.LiveMaxMB), mb(int64(math.Round(extra))))
	if budget > 0 {
		f.Message += fmt.Sprintf(" That is %s of the %s budget (%s).", pct(budgetShare), pacer.FormatSize(budget), budgetFrom)
	}
	f.Where = []Location{{File: s.Input, Line: sm.PeakHeapLine}}
	f.Evidence = []Evidence{
		{Label: "peak heap", Value: peak, Unit: "MB", Source: span(s)},
		{Label: "median live heap", Value: live, Unit: "MB", Source: span(s)},
		{Label: "largest live heap", Value: float64(sm.LiveMaxMB), Unit: "MB", Source: span(s)},
		{Label: "above 2 × live", Value: extra, Unit: "MB", Source: span(s)},
	}
	if budget > 0 {
		f.Evidence = append(f.Evidence, Evidence{Label: "share of the budget", Value: budgetShare * 100, Unit: "%", Source: budgetFrom})
	}

	if c.goVersion(s).atLeast(19) == no {
		f.Remedy = fmt.Sprintf("Lower GOGC towards 100 if the GC CPU it saves is small: %s has no GOMEMLIMIT to cap the heap (Go 1.19).", c.goVersion(s))
		f.Verify = "Rerun with the lower GOGC and compare peak RSS and GC CPU."
		return f
	}
	// The limit is sized on the largest live heap: it must hold it.
	limit, pred, now, base := c.suggestLimit(s, gogc, math.Max(live, float64(sm.LiveMaxMB)), peak, extra, budget)
	env := "GOMEMLIMIT=" + pacer.GOMEMLIMIT(limit)
	if pred != nil {
		back := peak - pred.PeakHeap.Value/(1<<20)
		f.Message += fmt.Sprintf(" The pacer model puts GC CPU at %s now against %s at GOGC=100; %s would give back about %s (a peak heap of %s) for %s GC CPU.",
			pct(now), pct(base), env, mb(int64(math.Round(back))), mb(int64(math.Round(pred.PeakHeap.Value/(1<<20)))), pct(pred.GCCPUFraction.Value))
		f.Evidence = append(f.Evidence,
			Evidence{Label: "GC CPU now (model)", Value: now * 100, Unit: "%", Source: span(s)},
			Evidence{Label: "GC CPU at GOGC=100 (model)", Value: base * 100, Unit: "%", Source: span(s)},
			Evidence{Label: "peak heap with " + env + " (model)", Value: pred.PeakHeap.Value / (1 << 20), Unit: "MiB", Source: span(s)},
			Evidence{Label: "GC CPU with " + env + " (model)", Value: pred.GCCPUFraction.Value * 100, Unit: "%", Source: span(s)})
	} else {
		f.Message += fmt.Sprintf(" %s would hold the heap under about %s.", env, pacer.FormatSize(limit))
	}
	f.Remedy = fmt.Sprintf("Keep the GOGC and set %s (or debug.SetMemoryLimit at start-up): the heap stays under it, and the GC runs as rarely as the GOGC allows below it.", env)
	if budget > 0 {
		f.Remedy += fmt.Sprintf(" It leaves at least %s of the %s budget free.", pct(1-headroomLimitOfLimit), pacer.FormatSize(budget))
	}
	f.Verify = fmt.Sprintf("Rerun with %s and compare: peak RSS and peak heap should fall, GC CPU stay close to what the GOGC gave.", env)
	f.Command = c.rerunCommand(env)
	return f
}

// memoryLimitSet reports whether the program ran with a GOMEMLIMIT.
func (c *evidenceView) memoryLimitSet() bool {
	l, err := pacer.ParseGOMEMLIMIT(c.in.GOMEMLIMIT)
	return c.in.GOMEMLIMIT != "" && err == nil && l > 0
}

// budget returns the memory budget the advice is given for: --budget, else
// the cgroup memory limit the run recorded; 0 when none.
func (c *evidenceView) budget() (int64, string) {
	if t := c.in.Tune; t != nil && t.Budget > 0 {
		from := t.BudgetSource
		if from == "" {
			from = "--budget"
		}
		return t.Budget, from
	}
	if r := c.in.Run; r != nil && r.CgroupMemoryLimit > 0 {
		return r.CgroupMemoryLimit, "the cgroup memory limit"
	}
	return 0, ""
}

// inferGOGC estimates the GOGC of a log that does not say: the median, over
// cycles, of the goal against the live heap the previous cycle marked.
// Goals at the minimum heap (4 MiB × GOGC/100) are left out: the live heap
// did not set them.
func inferGOGC(s *gctrace.Segment) int {
	var ratios []float64
	for i := 1; i < len(s.Cycles); i++ {
		prev, cur := s.Cycles[i-1], s.Cycles[i]
		if prev.HeapLive < 4 || cur.HeapGoal <= 0 {
			continue
		}
		ratios = append(ratios, float64(cur.HeapGoal)/float64(prev.HeapLive))
	}
	if len(ratios) == 0 {
		sm := &s.Summary
		if sm.LiveMaxMB <= 0 || sm.MaxGoalMB <= 0 {
			return 100
		}
		return roundGOGC((float64(sm.MaxGoalMB)/float64(sm.LiveMaxMB) - 1) * 100)
	}
	slices.Sort(ratios)
	return roundGOGC((ratios[len(ratios)/2] - 1) * 100)
}

// roundGOGC rounds an inferred GOGC to two significant figures: goals are
// printed in whole MB, so more would be false precision.
func roundGOGC(g float64) int {
	if g < 10 {
		return int(math.Round(g))
	}
	p := math.Pow(10, math.Floor(math.Log10(g))-1)
	return int(math.Round(g/p) * p)
}

// suggestLimit picks a GOMEMLIMIT for the process: the largest of 3, 4, 6
// and 8 times the live heap (plus what is not heap) that gives back at
// least half the memory above twice the live heap, and no more than 90% of
// the budget. With the pacer model of the process it returns what the
// limit and GOGC=100 would do; pred is nil without one.
func (c *evidenceView) suggestLimit(s *gctrace.Segment, gogc int, live, peak, extra float64, budget int64) (limit int64, pred *pacer.Prediction, now, base float64) {
	sm := &s.Summary
	nonHeap := 0.0
	if sm.MaxStacksMB > 0 {
		nonHeap += float64(sm.MaxStacksMB)
	}
	if sm.MaxGlobalsMB > 0 {
		nonHeap += float64(sm.MaxGlobalsMB)
	}
	var m *pacer.Model
	if t := c.tuning; t != nil && t.Segment == s && t.Model != nil && t.Model.Reproduces() {
		m = t.Model
		nonHeap = m.StacksMiB + m.GlobalsMiB + m.RuntimeOverheadMiB
	}
	g := gogc
	if c.off {
		g = pacer.Off
	}
	roundUp := func(mib float64) int64 {
		return int64(math.Ceil(mib/headroomRoundMiB)*headroomRoundMiB) << 20
	}
	ceiling := int64(math.MaxInt64)
	if budget > 0 {
		ceiling = int64(headroomLimitOfLimit*float64(budget)) >> 20 << 20
	}
	limit = min(roundUp(3*live+nonHeap), ceiling)
	for _, k := range []float64{4, 6, 8} {
		l := min(roundUp(k*live+nonHeap), ceiling)
		heap := float64(l)/(1<<20) - nonHeap
		if m != nil {
			p := m.Predict(pacer.Setting{GOGC: g, MemoryLimit: l})
			heap = p.PeakHeap.Value / (1 << 20)
		}
		if peak-heap >= headroomGiveBackPart*extra {
			limit = l
		}
	}
	if m == nil {
		return limit, nil, 0, 0
	}
	p := m.Predict(pacer.Setting{GOGC: g, MemoryLimit: limit})
	now = m.Predict(m.Observed).GCCPUFraction.Value
	base = m.Predict(pacer.Setting{GOGC: 100}).GCCPUFraction.Value
	return limit, &p, now, base
}
