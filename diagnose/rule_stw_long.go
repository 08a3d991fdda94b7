package diagnose

import (
	"fmt"
	"math"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "stw-long",
		Title:    "Long stop-the-world pauses",
		Severity: Warning,
		Rank:     30,
		Evidence: "gctrace, or a running program's own figures",
		Rationale: `While the world is stopped no goroutine runs: every request in flight waits.
Since Go 1.5 the two GC pauses per cycle (sweep termination and mark
termination) normally take well under a millisecond; pauses of 10 ms and more
mean something delays the stop or the work done inside it.`,
		Detection: `The longest pause of a process is ≥ 10 ms (critical at ≥ 100 ms), or its
99th percentile is ≥ 5 ms. Before Go 1.5 the whole collection stopped the
world and is counted as one pause. When gcdoctor ran the program it sampled
the machine's CPU contention (host.csv: PSI cpu pressure, the cgroup's
throttling, steal, load): each long pause is placed in its sampling
interval, and when the longest and at least half of them came while the
CPUs were contended (some task waiting for a CPU ≥ 25% of the interval,
any throttling, or ≥ 10% steal) the finding says so and is only
information: the host, not the program, made them long. The processes a
command starts (go build's compilers) cannot be placed in time and are
judged by the whole run (contended ≥ 50% of it). A quiet host makes the
pauses the program's own, and the finding says that too.
From a running program's own figures (attach, doctor URL): the same
thresholds on the window's pauses, from the MemStats ring of the last 256
cycles (both pauses of a cycle together), the agent's pause histogram, or
client_golang's summary of the last pauses.`,
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
		live:  liveSTW,
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
	minMS := 10.0
	if sm.MaxPauseMS < minMS {
		minMS = 5
	}
	if ph := c.pausesOnHost(s, minMS); ph != nil {
		stwOnHost(c, f, ph, minMS)
	}
	return f
}

// stwOnHost says whose the pauses were, from the host's CPU contention
// at the time: a stopped world needs CPUs to stop and to restart, and on
// a contended machine it waits for them like any thread.
func stwOnHost(c *evidenceView, f *Finding, ph *pauseHost, minMS float64) {
	ncpu := c.numCPU()
	when := "around the longest pause"
	if !ph.aligned {
		when = "over the run"
	}
	switch {
	case ph.host():
		f.Severity = Info
		if ph.aligned {
			f.Message += fmt.Sprintf(" %d of the %d pauses ≥ %s ms, the longest among them, came while the machine's CPUs were contended (around the longest: %s). The host, not the program, made them long: a stopped world waits for a CPU like any thread.",
				ph.busy, ph.pauses, f1(minMS), ph.longest.describe(ncpu))
		} else {
			f.Message += fmt.Sprintf(" The machine's CPUs were contended for %s%% of the run (%s). The pauses of a process the run started cannot be placed in time, but on a host this busy the host, not the program, most likely made them long.",
				f1(math.Round(ph.longest.busyPct)), ph.longest.describe(ncpu))
		}
		f.Remedy = hostRemedy(ph.longest) + " Then measure again: if the pauses stay long on a quiet host, they are the program's. " + f.Remedy
		f.Verify = "Rerun where the program has its CPUs (the host quiet, GOMAXPROCS no more than its CPU quota): the host's CPU pressure should stay low during the pauses, and the pauses should shrink with it."
	case ph.quiet():
		f.Message += fmt.Sprintf(" The host was quiet during them (%s %s): the pauses are the program's own.", when, ph.longest.describe(ncpu))
	default:
		f.Message += fmt.Sprintf(" %d of the %d pauses ≥ %s ms came while the machine's CPUs were contended, the longest did not (around it: %s): the program's own pauses are long, and the host lengthened some.",
			ph.busy, ph.pauses, f1(minMS), ph.longest.describe(ncpu))
	}
	f.Evidence = append(f.Evidence, ph.longest.evidence(when)...)
}

// hostRemedy says how to give a program its CPUs back, for the kind of
// contention h shows.
func hostRemedy(h hostSpan) string {
	switch {
	case h.throttled > 0:
		return "The cgroup's CPU quota throttled the program: set GOMAXPROCS to the quota (Go ≥ 1.25 does so by itself) or raise the quota."
	case h.stealPct >= busyStealPct:
		return "The hypervisor gave the CPUs to other machines (steal): move to a larger or dedicated instance."
	}
	return "Give the program its CPUs: fewer busy processes beside it, or a CPU reservation (cpuset, a container's CPU request)."
}

func liveSTW(c *evidenceView, v *liveView) *Finding {
	p := v.k.Pauses
	long := known(p.MaxMS) && p.MaxMS >= 10
	tail := known(p.P99MS) && p.Count >= 20 && p.P99MS >= 5
	if !long && !tail {
		return nil
	}
	f := &Finding{Severity: Warning, score: p.MaxMS}
	switch {
	case !long:
		f.Severity = Info
	case p.MaxMS >= 100:
		f.Severity = Critical
	}
	what := "stop-the-world pause"
	if p.PerCycle {
		what = "cycle's stop-the-world pauses together"
	}
	f.Message = fmt.Sprintf("The longest %s of %s took %s ms (p99 %s ms, %d figures; %s).", what, v.who(), f1(p.MaxMS), f1(p.P99MS), p.Count, p.From)
	f.Evidence = []Evidence{{Label: "longest pause", Value: p.MaxMS, Unit: "ms", Source: v.src()}}
	if known(p.P99MS) {
		f.Evidence = append(f.Evidence, Evidence{Label: "p99 pause", Value: p.P99MS, Unit: "ms", Source: v.src()})
	}
	if !p.Window {
		f.Caveats = append(f.Caveats, "the pauses are not exactly the window's: "+p.From)
	}
	f.Remedy = "Pauses this long come from a machine whose CPUs are contended (a stopped world waits for a CPU like any thread), CPU throttling by a container limit below GOMAXPROCS, or goroutines that do not reach a preemption point. The execution trace of this attach (gcdoctor trace) says what ran while the world was stopping."
	f.Verify = fmt.Sprintf("Attach again: the longest pause (now %s ms) should stay under 10 ms.", f1(p.MaxMS))
	return f
}
