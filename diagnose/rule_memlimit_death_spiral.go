package diagnose

import (
	"fmt"
	"strings"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "memlimit-death-spiral",
		Title:    "The heap is pinned at its goal and the GC never stops",
		Severity: Critical,
		Rank:     10,
		Evidence: "gctrace, or a running program's own figures",
		Rationale: `With a memory limit (GOMEMLIMIT, especially with GOGC=off) the heap goal is
capped at the limit. When the live heap approaches the cap there is no room
left to allocate between cycles: a new cycle starts as soon as the last one
ends, marking runs all the time, and assists slow every allocating
goroutine. The runtime caps the GC at about 50% of the CPU and then lets the
heap exceed the limit, so the process is both slow and over its budget, and
in a container it is eventually killed.`,
		Detection: `At least 5 cycles; in half of them or more the live heap is ≥ 95% of the
goal, and marking runs ≥ 50% of the wall time. Not reported for a program
run by gcdoctor with no GOMEMLIMIT and a finite GOGC: nothing caps its goal.
From a running program's own figures (attach, doctor URL): at least 5
cycles in the window, the live heap the runtime measured ≥ 95% of the
goal at its end, and marking ≥ 50% of the window (the dedicated mark
workers' CPU over their 25% of GOMAXPROCS) or, where the runtime's CPU
classes are not served, GC CPU ≥ 25%.`,
		Remedy: `Make room between the live heap and the limit: raise GOMEMLIMIT (keep it
5–10% below a container's memory limit, and well above the live heap), or
reduce the live heap. Do not run GOGC=off with a limit close to the live
heap: a finite GOGC (for example 100) bounds how often the GC runs when the
limit is far, and the limit still applies. If the live heap itself is what
grew, find out why (live-heap-growth).`,
		Verify: `Rerun: mark_wall_percent should drop far below 50% and at_goal_cycles to 0.`,
		Versions: `GOMEMLIMIT and the GC CPU limiter exist from Go 1.19; before that the same
pattern means GOGC is set very low.`,
		check: checkDeathSpiral,
		live:  liveDeathSpiral,
	})
}

func checkDeathSpiral(c *evidenceView, s *gctrace.Segment) *Finding {
	sm := &s.Summary
	if sm.Cycles < 5 || sm.AtGoalCycles*2 < sm.Cycles || !gctrace.Valid(sm.MarkWallPct) || sm.MarkWallPct < 50 {
		return nil
	}
	if c.in.Run != nil && c.in.GOMEMLIMIT == "" && c.gogcKnown && !c.off {
		// A run whose environment was seen, with no memory limit and a
		// finite GOGC: nothing caps the goal, so this is a heap growing
		// faster than the GC, not a spiral (live-heap-growth, heap-overshoot).
		return nil
	}
	f := &Finding{Severity: Critical, score: sm.MarkWallPct}
	f.Message = fmt.Sprintf("In %d of %d cycles of %s the live heap was at least 95%% of the heap goal (up to %s live against a %s goal), and marking ran %s%% of the time: the GC is effectively always on.",
		sm.AtGoalCycles, sm.Cycles, who(s), mb(sm.LiveMaxMB), mb(sm.MaxGoalMB), f1(sm.MarkWallPct))
	if gctrace.Valid(sm.GCCPUPercent) {
		f.Message += fmt.Sprintf(" GC takes %s%% of the CPU.", f1(sm.GCCPUPercent))
	}
	f.Evidence = []Evidence{
		{Label: "cycles with live ≥ 95% of goal", Value: float64(sm.AtGoalCycles), Unit: "cycles", Source: span(s)},
		{Label: "wall time marking", Value: sm.MarkWallPct, Unit: "%", Source: span(s)},
		{Label: "max live heap", Value: float64(sm.LiveMaxMB), Unit: "MB", Source: span(s)},
		{Label: "max heap goal", Value: float64(sm.MaxGoalMB), Unit: "MB", Source: span(s)},
		{Label: "back-to-back cycles", Value: float64(sm.BackToBackCycles), Unit: "cycles", Source: span(s)},
	}
	if gctrace.Valid(sm.GCCPUPercent) {
		f.Evidence = append(f.Evidence, Evidence{Label: "GC CPU", Value: sm.GCCPUPercent, Unit: "%", Source: span(s)})
	}
	headroom := int64(float64(sm.LiveMaxMB+max(sm.MaxStacksMB, 0)+max(sm.MaxGlobalsMB, 0)) * 1.25)
	switch c.goVersion(s).atLeast(19) {
	case no:
		f.Remedy = fmt.Sprintf("%s has no memory limit, so the goal is pinned by a very low GOGC: raise it.", c.goVersion(s))
	default:
		f.Remedy = fmt.Sprintf("The goal is capped by GOMEMLIMIT right at the live heap. Raise GOMEMLIMIT to at least %s (live heap, stacks and globals plus 25%%), keeping it 5–10%% under any container limit, or reduce the live heap. Avoid GOGC=off with a limit this close to the live heap: a finite GOGC bounds the GC when the limit is far.", mb(headroom))
	}
	f.Verify = "Rerun: marking should run well under 50% of the time and the live heap should stay clearly below the goal."
	return f
}

func liveDeathSpiral(c *evidenceView, v *liveView) *Finding {
	k := v.k
	if k.Cycles < 5 || k.LiveEstimated || !known(k.LiveHeapBytes) || !known(k.HeapGoalBytes) || k.LiveHeapBytes < 0.95*k.HeapGoalBytes {
		return nil
	}
	busy, how := k.GCCPU.MarkShare, "marking"
	if !known(busy) {
		busy, how = k.GCCPU.Fraction/0.5, "GC CPU"
	}
	if !known(busy) || busy < 0.5 {
		return nil
	}
	f := &Finding{Severity: Critical, score: k.LiveHeapBytes / k.HeapGoalBytes}
	f.Message = fmt.Sprintf("At the end of the window the live heap of %s was %s%% of the heap goal (%s live against a %s goal) after %d cycles in %s s, and %s ran %s%% of the time (%s): the GC is effectively always on.",
		v.who(), f1(100*k.LiveHeapBytes/k.HeapGoalBytes), mib(k.LiveHeapBytes), mib(k.HeapGoalBytes), k.Cycles, f1(k.WindowS), how, f1(100*busy), k.GCCPU.From)
	if how == "GC CPU" {
		f.Message = strings.Replace(f.Message, fmt.Sprintf("%s ran %s%% of the time", how, f1(100*busy)), fmt.Sprintf("GC took %s%% of the CPU", f1(100*k.GCCPU.Fraction)), 1)
	}
	f.Evidence = []Evidence{
		{Label: "live heap", Value: k.LiveHeapBytes / (1 << 20), Unit: "MB", Source: v.src()},
		{Label: "heap goal", Value: k.HeapGoalBytes / (1 << 20), Unit: "MB", Source: v.src()},
		{Label: "GC cycles", Value: k.CyclesPerSecond, Unit: "/s", Source: v.src()},
	}
	if lim := k.MemoryLimitBytes; known(lim) {
		f.Evidence = append(f.Evidence, Evidence{Label: "GOMEMLIMIT", Value: lim / (1 << 20), Unit: "MB", Source: v.src()})
	}
	f.Caveats = []string{"the live heap and the goal are read once, at the end of the window, rather than from each cycle"}
	headroom := (k.LiveHeapBytes + zeroNaN(k.StackBytes) + zeroNaN(k.GlobalsBytes)) * 1.25
	f.Remedy = fmt.Sprintf("The goal is capped by GOMEMLIMIT right at the live heap. Raise GOMEMLIMIT to at least %s (live heap, stacks and globals plus 25%%), keeping it 5–10%% under any container limit, or reduce the live heap. Avoid GOGC=off with a limit this close to the live heap.", mib(headroom))
	f.Verify = "Attach again after the change: the live heap should stay clearly below the goal, and the GC's share of the CPU fall."
	return f
}

// zeroNaN is v, or 0 when v is not known.
func zeroNaN(v float64) float64 {
	if !known(v) {
		return 0
	}
	return v
}
