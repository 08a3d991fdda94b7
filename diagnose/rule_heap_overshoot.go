package diagnose

import (
	"fmt"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "heap-overshoot",
		Title:    "The heap overshoots its goal",
		Severity: Warning,
		Rank:     50,
		Evidence: "gctrace",
		Rationale: `The pacer starts each cycle early enough that marking should finish before
the heap reaches the goal. When the heap ends a cycle well above the goal,
the program allocated faster during marking than the pacer planned for:
peak memory exceeds what GOGC or GOMEMLIMIT promise, which matters when a
container limit is near.`,
		Detection: `At least 3 cycles end ≥ 10% above their goal (the largest overshoot is
reported), counting only heaps of 8 MB or more, where MB rounding cannot
fake it.`,
		Remedy: `Smooth allocation bursts (bounded concurrency, streaming instead of
building whole results in memory), make sure the GC has CPU (GOMAXPROCS
matching the CPUs really available; no CPU throttling), and budget memory
for the real peak rather than the goal. If a memory limit is near, lower
GOGC or GOMEMLIMIT by the overshoot observed.`,
		Verify: `Rerun and compare overshoot_cycles and max_overshoot_percent.`,
		check:  checkOvershoot,
	})
}

func checkOvershoot(c *evidenceView, s *gctrace.Segment) *Finding {
	sm := &s.Summary
	if sm.OvershootCycles < 3 || sm.MaxOvershootPct < 10 || sm.PeakHeapMB < 8 {
		return nil
	}
	n := sm.BigOvershootCycles
	if n < 3 {
		return nil
	}
	f := &Finding{Severity: Warning, score: sm.MaxOvershootPct}
	f.Message = fmt.Sprintf("%d of %d cycles of %s ended above their heap goal, %d of them by 10%% or more, up to %s%% (line %d).",
		sm.OvershootCycles, sm.Cycles, who(s), n, f1(sm.MaxOvershootPct), sm.MaxOvershootLine)
	f.Evidence = []Evidence{
		{Label: "largest overshoot", Value: sm.MaxOvershootPct, Unit: "%", Source: at(s, sm.MaxOvershootLine)},
		{Label: "cycles over the goal", Value: float64(sm.OvershootCycles), Unit: "cycles", Source: span(s)},
		{Label: "peak heap", Value: float64(sm.PeakHeapMB), Unit: "MB", Source: at(s, sm.PeakHeapLine)},
	}
	f.Where = []Location{{File: s.Input, Line: sm.MaxOvershootLine}}
	f.Remedy = fmt.Sprintf("Budget memory for the real peak (%s, not the goal), smooth allocation bursts, and make sure the GC gets CPU (GOMAXPROCS equal to the CPUs available, no throttling).", mb(sm.PeakHeapMB))
	f.Verify = "Rerun and compare the largest overshoot."
	return f
}
