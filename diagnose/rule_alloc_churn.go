package diagnose

import (
	"fmt"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "alloc-churn",
		Title:    "Short-lived allocations drive the GC",
		Severity: Warning,
		Rank:     25,
		Evidence: "gctrace",
		Rationale: `In steady state a cycle starts every time the program has allocated about
live heap × GOGC/100 bytes, so the GC runs as often as the heap turns over:
allocation rate divided by live heap. When the program allocates tens of
times its live heap every second, almost everything it allocates is dead
within milliseconds — per-request buffers, temporary slices, strings built
and thrown away — and the collector runs dozens of times a second to clean
up after it. Each cycle costs fixed work (pauses, waking workers, sweeping)
plus marking the live heap; allocating large objects also makes the heap
overshoot its goal.`,
		Detection: `At least 10 cycles started by the pacer, at least 5 per second, an
allocation rate of at least 64 MB/s, and a heap turnover (allocation rate ÷
mean live heap) of at least 10 per second, with most cycles above the
minimum heap (below it, gc-min-heap applies). A warning when GC CPU is ≥ 5%.`,
		Remedy: remedyReuse + ` Streaming results instead of building them whole in
memory helps too.`,
		Verify: `Rerun under the same load: alloc_mb_per_s and gc_per_second should fall
together; a heap profile should no longer show the site at the top.`,
		check: checkChurn,
	})
}

func checkChurn(c *evidenceView, s *gctrace.Segment) *Finding {
	sm := &s.Summary
	paced := sm.Cycles - sm.Forced
	if paced < 10 || !gctrace.Valid(sm.GCPerSecond) || !gctrace.Valid(sm.AllocMBPerS) || !gctrace.Valid(sm.LiveMeanMB) {
		return nil
	}
	if sm.GCPerSecond < 5 || sm.AllocMBPerS < 64 || sm.MinHeapCycles*2 >= paced {
		return nil
	}
	turnover := sm.AllocMBPerS / max(sm.LiveMeanMB, 1)
	if turnover < 10 {
		return nil
	}
	sev := Info
	if gctrace.Valid(sm.GCCPUPercent) && sm.GCCPUPercent >= 5 {
		sev = Warning
	}
	f := &Finding{Severity: sev, score: turnover}
	f.Message = fmt.Sprintf("%s allocates %s MB/s while its live heap averages %s MB: the heap turns over %s times a second, so the GC runs %s times a second. What it allocates lives about %s ms on average: short-lived garbage drives the GC.",
		capWho(s), f1(sm.AllocMBPerS), f1(sm.LiveMeanMB), f1(turnover), f1(sm.GCPerSecond), f1(1000/turnover))
	if gctrace.Valid(sm.GCCPUPercent) {
		f.Message += fmt.Sprintf(" The GC costs %s%% of the CPU.", f1(sm.GCCPUPercent))
	}
	f.Evidence = []Evidence{
		{Label: "allocation rate", Value: sm.AllocMBPerS, Unit: "MB/s", Source: span(s)},
		{Label: "mean live heap", Value: sm.LiveMeanMB, Unit: "MB", Source: span(s)},
		{Label: "heap turnover", Value: turnover, Unit: "/s", Source: span(s)},
		{Label: "GC cycles", Value: sm.GCPerSecond, Unit: "/s", Source: span(s)},
	}
	if gctrace.Valid(sm.GCCPUPercent) {
		f.Evidence = append(f.Evidence, Evidence{Label: "GC CPU", Value: sm.GCCPUPercent, Unit: "%", Source: span(s)})
	}
	if sm.BigOvershootCycles > 0 {
		f.Evidence = append(f.Evidence, Evidence{Label: "cycles ≥ 10% over goal", Value: float64(sm.BigOvershootCycles), Unit: "cycles", Source: span(s)})
		f.Message += fmt.Sprintf(" %d cycles ended 10%% or more over their goal, a sign of large single allocations.", sm.BigOvershootCycles)
	}
	f.Remedy = remedyReuse
	f.Verify = fmt.Sprintf("Rerun under the same load: the allocation rate (now %s MB/s) and GC cycles per second (now %s) should fall together.", f1(sm.AllocMBPerS), f1(sm.GCPerSecond))
	return f
}
