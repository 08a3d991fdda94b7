package diagnose

import "fmt"

func init() {
	register(&Rule{
		ID: "trace-stw-long", Title: "A long stop-the-world pause, with its reason", Severity: Warning, Rank: 38,
		Evidence: "execution trace",
		Rationale: `The trace records every stop-the-world with the reason the runtime gave:
GC phases, but also runtime.GC, ReadMemStats, goroutine profiles and traces
themselves. A long one stalls every request in flight.`,
		Detection: `The longest stop-the-world in the trace is ≥ 10 ms.`,
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
	var worst *struct {
		ms     float64
		reason string
		at     float64
	}
	for _, s := range gc.Stops {
		if worst == nil || s.DurationMS > worst.ms {
			worst = &struct {
				ms     float64
				reason string
				at     float64
			}{s.DurationMS, s.Reason, s.AtMS}
		}
	}
	if worst == nil || worst.ms < 10 {
		return nil
	}
	f := &Finding{Severity: Warning, score: worst.ms}
	if worst.ms >= 100 {
		f.Severity = Critical
	}
	f.Message = fmt.Sprintf("The world was stopped for %s ms at %s ms into the trace (reason: %q); %d stops in all, %s ms in total, p99 %s ms.",
		f1(worst.ms), f1(worst.at), worst.reason, gc.STW.Count, f1(gc.STW.TotalMS), f1(gc.STW.P99MS))
	f.Evidence = []Evidence{
		{Label: "longest stop", Value: worst.ms, Unit: "ms", Source: traceName(c)},
		{Label: "stops", Value: float64(gc.STW.Count), Unit: "count", Source: traceName(c)},
		{Label: "p99 stop", Value: gc.STW.P99MS, Unit: "ms", Source: traceName(c)},
	}
	f.Remedy = "For GC pauses, see stw-long (preemption, GOMAXPROCS above the CPU quota, swapping). For other reasons, find the caller: runtime.ReadMemStats or goroutine profiles polled often stop the world each time; runtime/metrics does not."
	f.Verify = "Trace again: the longest stop should drop under 10 ms."
	return []*Finding{f}
}
