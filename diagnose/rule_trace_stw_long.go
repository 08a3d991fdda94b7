package diagnose

import (
	"fmt"
	"math"

	"github.com/gcdoctor/gcdoctor/exectrace"
)

func init() {
	register(&Rule{
		ID: "trace-stw-long", Title: "A long stop-the-world pause, with its reason", Severity: Warning, Rank: 38,
		Evidence: "execution trace",
		Rationale: `The trace records every stop-the-world with the reason the runtime gave:
GC phases, but also runtime.GC, ReadMemStats, goroutine profiles and traces
themselves. A long one stalls every request in flight.`,
		Detection: `The longest stop-the-world in the trace is ≥ 10 ms. The trace shows what
held it: a goroutine still running when the stop began that stopped last,
after at least half the pause (it could not be preempted), or nothing (the
world stood stopped: the runtime's work, or its thread waiting for a CPU).
When nothing held it and the machine's CPUs were contended for at least
half of the run (gcdoctor run's host.csv), the runtime's own thread waited
for a CPU: the host, not the program, made the stop long, and the finding
is only information.`,
		Remedy: `For GC pauses see stw-long. For others, remove the caller: a
runtime.ReadMemStats or a goroutine profile polled often stops the world
each time (use runtime/metrics, which does not).`,
		Verify:   `Trace again and compare the longest pause and its reason.`,
		checkAll: checkTraceSTW,
	})
}

func checkTraceSTW(c *evidenceView) []*Finding {
	t := c.in.Trace
	if t == nil || t.Result == nil {
		return nil
	}
	gc := &t.Result.GC
	var worst *exectrace.Stop
	for i := range gc.Stops {
		if worst == nil || gc.Stops[i].DurationMS > worst.DurationMS {
			worst = &gc.Stops[i]
		}
	}
	if worst == nil || worst.DurationMS < 10 {
		return nil
	}
	f := &Finding{Severity: Warning, score: worst.DurationMS}
	if worst.DurationMS >= 100 {
		f.Severity = Critical
	}
	f.Message = fmt.Sprintf("The world was stopped for %s ms at %s ms into the trace (reason: %q); %d stops in all, %s ms in total, p99 %s ms.",
		f1(worst.DurationMS), f1(worst.AtMS), worst.Reason, gc.STW.Count, f1(gc.STW.TotalMS), f1(gc.STW.P99MS))
	f.Evidence = []Evidence{
		{Label: "longest stop", Value: worst.DurationMS, Unit: "ms", Source: traceName(c)},
		{Label: "waiting for goroutines to stop", Value: worst.StoppingMS, Unit: "ms", Source: traceName(c)},
		{Label: "stops", Value: float64(gc.STW.Count), Unit: "count", Source: traceName(c)},
		{Label: "p99 stop", Value: gc.STW.P99MS, Unit: "ms", Source: traceName(c)},
	}
	f.Remedy = "For GC pauses, see stw-long (preemption, GOMAXPROCS above the CPU quota, swapping). For other reasons, find the caller: runtime.ReadMemStats or goroutine profiles polled often stop the world each time; runtime/metrics does not."
	f.Verify = "Trace again: the longest stop should drop under 10 ms."

	// What held the stop: a goroutine that kept running after it was
	// asked to stop, or nothing of the program's.
	var host *hostSpan
	if len(c.hostIv) > 0 {
		h := c.hostRun()
		host = &h
	}
	busy := host != nil && host.busyPct >= 50
	ncpu := c.numCPU()
	held := worst.Holder != "" && worst.StoppingMS >= worst.DurationMS/2
	switch {
	case held && !busy:
		f.Message += fmt.Sprintf(" It waited %s ms for goroutine %d (%s) to stop: that goroutine kept running after the stop was requested, where it could not be preempted.",
			f1(worst.StoppingMS), worst.HolderID, worst.Holder)
		f.Remedy = fmt.Sprintf("Find the loop in %s that runs without a preemption point: before Go 1.14, or with GODEBUG=asyncpreemptoff=1, a loop without function calls cannot be stopped; a long non-preemptible runtime operation (a huge memmove or clear, a large map or slice allocation) holds a stop the same way. Split the work, or call a function in the loop. ", worst.Holder) + f.Remedy
	case held:
		// A goroutine whose thread has no CPU looks the same in the
		// trace as one that cannot be preempted: both stay running.
		f.Message += fmt.Sprintf(" It waited %s ms for goroutine %d (%s) to stop. The machine's CPUs were contended for %s%% of the run (%s), which delays any stop: the goroutine either could not be preempted or its thread had no CPU to notice the request.",
			f1(worst.StoppingMS), worst.HolderID, worst.Holder, f1(math.Round(host.busyPct)), host.describe(ncpu))
		f.Remedy = hostRemedy(*host) + fmt.Sprintf(" Then trace again on a quiet host: a stop still held by %s there is the program's (a loop without preemption points). ", worst.Holder) + f.Remedy
	default:
		if worst.Running == 0 {
			f.Message += fmt.Sprintf(" No goroutine held it: none was running when it began (the Ps were idle or in system calls), and the world stood stopped for %s ms.", f1(worst.DurationMS))
		} else {
			f.Message += fmt.Sprintf(" No goroutine held it: %d were running when it began and all had stopped within %s ms; the world then stood stopped for %s ms.",
				worst.Running, f1(worst.StoppingMS), f1(worst.DurationMS-worst.StoppingMS))
		}
		switch {
		case busy:
			f.Severity = Info
			f.Message += fmt.Sprintf(" The machine's CPUs were contended for %s%% of the run (%s): the runtime's own thread waited for a CPU inside the stop. The host, not the program, made it long.", f1(math.Round(host.busyPct)), host.describe(ncpu))
			f.Remedy = hostRemedy(*host) + " Then trace again on a quiet host."
		case host != nil:
			f.Message += fmt.Sprintf(" The host was quiet (%s over the run): the time went to the runtime's work inside the stop.", host.describe(ncpu))
		case worst.GC:
			f.Message += " A collection's own work inside a stop takes well under a millisecond: most likely its thread waited for a CPU, the host's doing (gcdoctor run records the host's contention to tell)."
		}
	}
	return []*Finding{f}
}
