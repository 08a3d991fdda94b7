package diagnose

import (
	"fmt"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "gc-min-heap",
		Title:    "GC runs too often at the minimum heap size",
		Severity: Warning,
		Rank:     60,
		Evidence: "gctrace, or a running program's own figures",
		Rationale: `The runtime never lets the heap goal fall below 4 MB × GOGC/100. A program
whose live heap is smaller than that (a CLI, a compiler, a small service
with a high allocation rate) starts a cycle every few MB allocated, dozens of
times a second, and each cycle has fixed costs (two stop-the-world pauses,
waking workers, sweeping) that its tiny heap does not amortise.`,
		Detection: `At least 10 cycles started by the pacer (forced cycles do not count), half
or more of them with a goal at the minimum heap (4 MB × GOGC/100), and at
least 5 such cycles per second.
From a running program's own figures (attach, doctor URL): at least 10
cycles started by the pacer in the window, 5 or more a second, and the
goal at the minimum heap at its end.`,
		Remedy: `Give the GC a larger minimum: raise GOGC (GOGC=400 makes the minimum 16 MB
and cuts the number of cycles about 4×), or on Go ≥ 1.19 set GOMEMLIMIT to
the memory the program may use and GOGC=off or a high GOGC, so the GC runs
only when memory is actually scarce. On Go ≥ 1.19 do not add a heap ballast
(a large []byte kept alive to inflate the live heap): GOMEMLIMIT does the
same job without the risks. Reducing the allocation rate also helps.`,
		Verify: `Rerun: gc_per_second should drop in proportion to the new minimum, and
gc_cpu_percent with it.`,
		Versions: `Go ≥ 1.19: GOMEMLIMIT. Go < 1.19: GOGC, or the heap ballast trick, which
GOMEMLIMIT replaced.`,
		check: checkMinHeap,
		live:  liveMinHeap,
	})
}

func checkMinHeap(c *evidenceView, s *gctrace.Segment) *Finding {
	sm := &s.Summary
	paced := sm.Cycles - sm.Forced // forced cycles ignore the heap goal
	if paced < 10 || sm.MinHeapCycles*2 < paced || !gctrace.Valid(sm.GCPerSecond) || sm.GCPerSecond*float64(paced)/float64(sm.Cycles) < 5 {
		return nil
	}
	sev := Info
	if gctrace.Valid(sm.GCCPUPercent) && sm.GCCPUPercent >= 5 {
		sev = Warning
	}
	f := &Finding{Severity: sev, score: sm.GCPerSecond}
	f.Message = fmt.Sprintf("%d of %d cycles of %s ran with a heap goal at the minimum (%s at GOGC=%d): the live heap (at most %s) is too small to pace the GC, so it runs %s times a second.",
		sm.MinHeapCycles, sm.Cycles, who(s), mb(c.minHeapMB()), c.gogc, mb(sm.LiveMaxMB), f1(sm.GCPerSecond))
	f.Evidence = []Evidence{
		{Label: "cycles at the minimum heap", Value: float64(sm.MinHeapCycles), Unit: "cycles", Source: span(s)},
		{Label: "GC cycles", Value: sm.GCPerSecond, Unit: "/s", Source: span(s)},
		{Label: "max live heap", Value: float64(sm.LiveMaxMB), Unit: "MB", Source: span(s)},
	}
	if gctrace.Valid(sm.GCCPUPercent) {
		f.Evidence = append(f.Evidence, Evidence{Label: "GC CPU", Value: sm.GCCPUPercent, Unit: "%", Source: span(s)})
	}
	g := c.gogc * 4
	if g < 400 {
		g = 400
	}
	f.Remedy = fmt.Sprintf("Raise GOGC (GOGC=%d gives a %s minimum and about %d× fewer cycles).", g, mb(int64(4*g/100)), g/max(c.gogc, 1))
	switch c.goVersion(s).atLeast(19) {
	case yes:
		f.Remedy += " Or set GOMEMLIMIT to the memory the program may use with GOGC=off or a high GOGC; do not use a heap ballast."
	case maybe:
		f.Remedy += " On Go ≥ 1.19, GOMEMLIMIT with a high GOGC is the better tool (and replaces a heap ballast); on older versions GOGC is the knob."
	case no:
		f.Remedy += fmt.Sprintf(" %s has no GOMEMLIMIT; upgrading to Go ≥ 1.19 adds it. A heap ballast was the workaround before it.", c.goVersion(s))
	}
	f.Verify = fmt.Sprintf("Rerun with the new setting: GC cycles per second should fall from %s to about %s.", f1(sm.GCPerSecond), f1(sm.GCPerSecond*float64(c.gogc)/float64(g)))
	return f
}

func liveMinHeap(c *evidenceView, v *liveView) *Finding {
	k := v.k
	gogc, off := v.gogc(c)
	paced := k.Cycles - k.Forced
	floor := 4 << 20 * float64(gogc) / 100
	if off || paced < 10 || float64(paced)/k.WindowS < 5 || !known(k.HeapGoalBytes) || k.HeapGoalBytes > floor*1.001 {
		return nil
	}
	f := &Finding{Severity: Info, score: k.CyclesPerSecond}
	if known(k.GCCPU.Fraction) && k.GCCPU.Fraction >= 0.05 {
		f.Severity = Warning
	}
	f.Message = fmt.Sprintf("At the end of the window the heap goal of %s was the minimum (%s at GOGC=%d): the live heap is too small to pace the GC, so it ran %s times a second.",
		v.who(), mib(floor), gogc, f1(k.CyclesPerSecond))
	f.Evidence = []Evidence{
		{Label: "heap goal", Value: k.HeapGoalBytes / (1 << 20), Unit: "MB", Source: v.src()},
		{Label: "GC cycles", Value: k.CyclesPerSecond, Unit: "/s", Source: v.src()},
	}
	f.Caveats = []string{"the goal is read at the end of the window, not at each cycle"}
	g := max(gogc*4, 400)
	f.Remedy = fmt.Sprintf("Raise GOGC (GOGC=%d gives a %s minimum and about %d× fewer cycles), or set GOMEMLIMIT to the memory the program may use with a high GOGC; do not use a heap ballast.", g, mib(4<<20*float64(g)/100), g/max(gogc, 1))
	f.Verify = fmt.Sprintf("Attach again: GC cycles per second should fall from %s to about %s.", f1(k.CyclesPerSecond), f1(k.CyclesPerSecond*float64(gogc)/float64(g)))
	return f
}
