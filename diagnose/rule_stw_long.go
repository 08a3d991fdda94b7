package diagnose

import (
	"fmt"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "stw-long",
		Title:    "Long stop-the-world pauses",
		Severity: Warning,
		Rank:     30,
		Evidence: "gctrace",
		Rationale: `While the world is stopped no goroutine runs: every request in flight waits.
Since Go 1.5 the two GC pauses per cycle (sweep termination and mark
termination) normally take well under a millisecond; pauses of 10 ms and more
mean something delays the stop or the work done inside it.`,
		Detection: `The longest pause of a process is ≥ 10 ms (critical at ≥ 100 ms), or its
99th percentile is ≥ 5 ms. Before Go 1.5 the whole collection stopped the
world and is counted as one pause.`,
		Remedy: `On Go ≤ 1.4 the collector itself stops the world for the whole mark: upgrade
(Go 1.5 made marking concurrent; pauses went from seconds to milliseconds).
On Go 1.5–1.6 finalizer scanning and stack shrinking still ran in mark
termination: upgrade to ≥ 1.7. On newer versions the usual causes are: a
goroutine that cannot be preempted (tight loops without calls before Go
1.14's asynchronous preemption), too few CPUs for GOMAXPROCS (a container
CPU limit below GOMAXPROCS throttles the process while the world is stopped;
Go 1.25 sizes GOMAXPROCS from the limit), the machine swapping or migrating
pages between NUMA nodes (page faults inside the pause). An execution trace
shows what ran while the world was stopping.`,
		Verify: `Rerun and compare max_pause_ms and p99_pause_ms.`,
		Versions: `≤ 1.4: stop-the-world collector. 1.5–1.6: long mark termination with many
finalizers or goroutines. < 1.14: no asynchronous preemption. < 1.25:
GOMAXPROCS ignores the container's CPU limit.`,
		check: checkSTW,
	})
}

func checkSTW(c *evidenceView, s *gctrace.Segment) *Finding {
	sm := &s.Summary
	p99 := sm.P99PauseMS
	if sm.MaxPauseMS < 10 && !(sm.Pauses >= 20 && p99 >= 5) {
		return nil
	}
	sev := Warning
	if sm.MaxPauseMS < 10 {
		sev = Info // only the tail is long
	}
	if sm.MaxPauseMS >= 100 {
		sev = Critical
	}
	f := &Finding{Severity: sev, score: sm.MaxPauseMS}
	// Which pause is long tells the cause apart.
	sweepTerm, markTerm := sm.LongSweepTerm, sm.LongMarkTerm
	f.Message = fmt.Sprintf("%s stopped the world for up to %s ms (p50 %s ms, p99 %s ms over %d pauses, %s ms in all).",
		capWho(s), f1(sm.MaxPauseMS), f1(sm.P50PauseMS), f1(p99), sm.Pauses, f1(sm.PauseTotalMS))
	if markTerm > 0 || sweepTerm > 0 {
		f.Message += fmt.Sprintf(" Pauses ≥ 10 ms: %d in mark termination, %d in sweep termination.", markTerm, sweepTerm)
	}
	f.Evidence = []Evidence{
		{Label: "longest pause", Value: sm.MaxPauseMS, Unit: "ms", Source: at(s, sm.MaxPauseLine)},
		{Label: "p99 pause", Value: p99, Unit: "ms", Source: span(s)},
		{Label: "p50 pause", Value: sm.P50PauseMS, Unit: "ms", Source: span(s)},
	}
	f.Where = []Location{{File: s.Input, Line: sm.MaxPauseLine}}
	v := c.goVersion(s)
	switch {
	case v.atLeast(5) == no:
		f.Remedy = fmt.Sprintf("%s stops the world for the whole collection. Upgrade: from Go 1.5 marking runs concurrently and pauses drop from tens of ms to under 1 ms. Until then, a smaller live heap (fewer pointers to scan) shortens each pause.", v)
	case v.atLeast(7) == no:
		f.Remedy = fmt.Sprintf("%s still scans finalizers and shrinks stacks in mark termination, which grows with the number of goroutines and finalizers (one per network connection). Upgrade to Go ≥ 1.7.", v)
	default:
		f.Remedy = "Find what delays the stop: take an execution trace (runtime/trace or /debug/pprof/trace) and look at what runs during the STW."
		if v.atLeast(14) != yes {
			f.Remedy += " Before Go 1.14 a goroutine in a loop without function calls cannot be preempted and holds up every stop: upgrade, or add a call in such loops."
		}
		if v.atLeast(25) != yes {
			f.Remedy += " In a container, set GOMAXPROCS to the CPU limit (automatic from Go 1.25): a throttled process cannot finish a pause."
		} else {
			f.Remedy += " Check for CPU throttling and swapping on the host."
		}
	}
	f.Verify = fmt.Sprintf("Rerun and compare: the longest pause should drop well below %s ms.", f1(sm.MaxPauseMS))
	return f
}
