package diagnose

import (
	"fmt"
	"math"
	"strings"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "alloc-churn",
		Title:    "Short-lived allocations drive the GC",
		Severity: Warning,
		Rank:     25,
		Evidence: "gctrace, or a running program's own figures",
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
minimum heap (below it, gc-min-heap applies). A warning when GC CPU is ≥ 5%.
From a running program's own figures (attach, doctor URL): the same
thresholds over the window, with its allocation rate, the live heap at its
end, and the goal at its end above the minimum heap.`,
		Remedy: remedyReuse + ` Streaming results instead of building them whole in
memory helps too.`,
		Verify: `Rerun under the same load: alloc_mb_per_s and gc_per_second should fall
together; a heap profile should no longer show the site at the top.`,
		check: checkChurn,
		live:  liveChurn,
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

func liveChurn(c *evidenceView, v *liveView) *Finding {
	k := v.k
	gogc, off := v.gogc(c)
	paced := k.Cycles - k.Forced
	if off || !known(k.AllocBytesPerSecond) || !known(k.LiveHeapBytes) || paced < 10 || float64(paced)/k.WindowS < 5 || k.AllocBytesPerSecond < 64<<20 {
		return nil
	}
	if known(k.HeapGoalBytes) && k.HeapGoalBytes <= 4<<20*float64(gogc)/100*1.001 {
		return nil // gc-min-heap's case
	}
	turnover := k.AllocBytesPerSecond / math.Max(k.LiveHeapBytes, 1<<20)
	if turnover < 10 {
		return nil
	}
	f := &Finding{Severity: Info, score: turnover}
	if known(k.GCCPU.Fraction) && k.GCCPU.Fraction >= 0.05 {
		f.Severity = Warning
	}
	f.Message = fmt.Sprintf("%s allocates %s MB/s while its live heap is %s: the heap turns over %s times a second, so the GC runs %s times a second. What it allocates lives about %s ms on average: short-lived garbage drives the GC.",
		capFirst(v.who()), f1(k.AllocBytesPerSecond/(1<<20)), mib(k.LiveHeapBytes), f1(turnover), f1(k.CyclesPerSecond), f1(1000/turnover))
	f.Evidence = []Evidence{
		{Label: "allocation rate", Value: k.AllocBytesPerSecond / (1 << 20), Unit: "MB/s", Source: v.src()},
		{Label: "live heap", Value: k.LiveHeapBytes / (1 << 20), Unit: "MB", Source: v.src()},
		{Label: "heap turnover", Value: turnover, Unit: "/s", Source: "allocation rate ÷ live heap"},
		{Label: "GC cycles", Value: k.CyclesPerSecond, Unit: "/s", Source: v.src()},
	}
	if k.LiveEstimated {
		f.Caveats = append(f.Caveats, "the live heap is estimated from the heap goal")
	}
	f.Remedy = remedyReuse
	f.Verify = fmt.Sprintf("Attach again under the same load: the allocation rate (now %s MB/s) and the GC cycles per second (now %s) should fall together.", f1(k.AllocBytesPerSecond/(1<<20)), f1(k.CyclesPerSecond))
	return f
}

// capFirst capitalises the first letter of a sentence.
func capFirst(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
