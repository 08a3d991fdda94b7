package diagnose

import (
	"fmt"
	"path/filepath"

	"github.com/gcdoctor/gcdoctor/exectrace"
)

// The trace rules judge goroutine groups, stop-the-world pauses and mark
// assists as an execution trace records them.

func init() {
	register(&Rule{
		ID: "goroutine-explosion", Title: "Goroutines are started faster than they can run", Severity: Warning, Rank: 35,
		Evidence: "execution trace",
		Rationale: `Starting a goroutine per item (go f() in a loop) with no bound puts
hundreds or thousands of goroutines in the run queue at once. They spend
their lives waiting for a P rather than running, each holds a stack the GC
must scan, and the scheduler's and the collector's work grows with them.`,
		Detection: `A group of the program's goroutines (same start function) with at least 100
goroutines created during the trace and at least 64 (and 8 × GOMAXPROCS)
alive at once, typically living through less than 80% of it (a goroutine
per item rather than a pool), whose time waiting for a P (runnable) is at
least 5× their running time.`,
		Remedy: `Bound the concurrency: a fixed pool of workers reading from a channel,
errgroup.Group with SetLimit, a semaphore channel, or batches with a
WaitGroup per batch. Size the pool with gcdoctor workers.`,
		Verify: `Trace again: the group's runnable time per goroutine and its peak live
count should fall, and the total time with them.`,
		checkAll: checkExplosion,
	})
	register(&Rule{
		ID: "workers-cpu-starved", Title: "Too many workers for the CPUs", Severity: Warning, Rank: 36,
		Evidence: "execution trace",
		Rationale: `Workers that spend most of their time runnable are waiting for a P: more of
them than the CPUs can serve only adds queueing, memory and GC work, not
throughput.`,
		Detection: `A group of at least 4 × GOMAXPROCS goroutines that live through most of
the trace (a pool, not a goroutine per item), runnable at least twice as
long as they run and sit in syscalls together, and more of them than the
top of the range computed from their time split (gcdoctor workers).`,
		Remedy: `Shrink the pool to the size computed from its own time split (gcdoctor
workers TRACE --group NAME): P × (1 + waiting/running).`,
		Verify: `Run a sweep of worker counts around the recommendation and trace again:
runnable share should drop while throughput stays.`,
		checkAll: checkStarved,
	})
	register(&Rule{
		ID: "workers-io-bound", Title: "Too few workers for work that mostly waits on I/O", Severity: Info, Rank: 37,
		Evidence: "execution trace",
		Rationale: `Workers that spend most of their time in system calls or waiting on the
network leave the CPUs idle: more of them would overlap the waiting.`,
		Detection: `A group of at least 2 goroutines that waits (syscalls, network, sleep) at
least 3× as long as it runs, is rarely runnable (median under 10%), and
whose computed size is more than twice the current count.`,
		Remedy: `Grow the pool towards the computed size (gcdoctor workers), or make the
I/O asynchronous or batched.`,
		Verify:   `Sweep worker counts and compare throughput.`,
		checkAll: checkIOBound,
	})
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

func traceName(c *evidenceView) string { return filepath.Base(c.in.Trace.Name) }

// longLived reports whether a group's goroutines typically live through
// most of the trace: workers of a pool, as opposed to a goroutine per item.
func longLived(t *TraceEvidence, g *exectrace.Group) bool {
	d := float64(t.Result.Duration.Microseconds()) / 1000
	return d > 0 && g.LifetimeMS.P50 >= 0.8*d
}

func checkExplosion(c *evidenceView) []*Finding {
	t := c.in.Trace
	if t == nil || t.Result == nil {
		return nil
	}
	var out []*Finding
	for _, g := range userGroups(t.Result) {
		// Many alive at once is what makes an explosion; a burst of short
		// goroutines that run a few at a time only looks like one on a
		// busy machine.
		peakFloor := max(64, 8*t.Result.Procs.GOMAXPROCS)
		if g.Created < 100 || g.PeakLive < peakFloor || g.RunnableMS < 5*g.RunningMS || g.RunnableMS <= 0 || longLived(t, g) {
			continue
		}
		f := &Finding{Severity: Warning, score: g.RunnableMS}
		perG := g.RunnableMS / float64(max(g.Count, 1))
		f.Message = fmt.Sprintf("%d goroutines started at %s (%s/s, up to %d alive at once) spent %s ms waiting for a P against %s ms running: %s ms of scheduler wait each.",
			g.Created, g.Name, f1(g.CreatedPerSec), g.PeakLive, f1(g.RunnableMS), f1(g.RunningMS), f1(perG))
		f.Evidence = []Evidence{
			{Label: "goroutines created", Value: float64(g.Created), Unit: "goroutines", Source: traceName(c)},
			{Label: "peak alive", Value: float64(g.PeakLive), Unit: "goroutines", Source: traceName(c)},
			{Label: "runnable (waiting for a P)", Value: g.RunnableMS, Unit: "ms", Source: traceName(c)},
			{Label: "running", Value: g.RunningMS, Unit: "ms", Source: traceName(c)},
			{Label: "median runnable share", Value: g.RunnableShare.P50 * 100, Unit: "%", Source: traceName(c)},
		}
		rec := recommendWorkers(g, t.Result.Procs.GOMAXPROCS)
		f.Remedy = fmt.Sprintf("Bound the concurrency of %s: a pool of about %d workers reading from a channel (gcdoctor workers suggests %d–%d from this trace), errgroup.Group with SetLimit, or a semaphore channel.", g.Name, rec.Workers, rec.Range[0], rec.Range[1])
		f.Verify = "Trace again: runnable time per goroutine and the peak number alive should fall."
		out = append(out, f)
		if len(out) == 3 {
			break
		}
	}
	return out
}

func checkStarved(c *evidenceView) []*Finding {
	t := c.in.Trace
	if t == nil || t.Result == nil {
		return nil
	}
	procs := max(t.Result.Procs.GOMAXPROCS, 1)
	var out []*Finding
	for _, g := range userGroups(t.Result) {
		if g.Count < 4*procs || g.RunnableMS < 2*(g.RunningMS+g.SyscallMS) || (g.Created >= 100 && !longLived(t, g)) {
			continue
		}
		rec := recommendWorkers(g, procs)
		if rec.Range[1] >= g.Count {
			continue
		}
		f := &Finding{Severity: Warning, score: g.RunnableMS}
		f.Message = fmt.Sprintf("%d goroutines of %s waited %s ms for a CPU against %s ms running and %s ms in syscalls on %d P: they queue for the CPUs more than they work. From their time split (running %s ms, waiting on I/O %s ms) %d workers would do (range %d–%d).",
			g.Count, g.Name, f1(g.RunnableMS), f1(g.RunningMS), f1(g.SyscallMS), procs, f1(g.RunningMS), f1(g.SyscallMS+g.Blocked.NetworkMS+g.Blocked.SleepMS), rec.Workers, rec.Range[0], rec.Range[1])
		f.Evidence = []Evidence{
			{Label: "workers", Value: float64(g.Count), Unit: "goroutines", Source: traceName(c)},
			{Label: "runnable (waiting for a P)", Value: g.RunnableMS, Unit: "ms", Source: traceName(c)},
			{Label: "running + syscalls", Value: g.RunningMS + g.SyscallMS, Unit: "ms", Source: traceName(c)},
			{Label: "recommended workers", Value: float64(rec.Workers), Unit: "goroutines", Source: traceName(c)},
		}
		f.Remedy = fmt.Sprintf("Shrink the pool of %s to about %d workers (gcdoctor workers --group %s shows the computation).", g.Name, rec.Workers, g.Name)
		f.Verify = "Sweep worker counts around the recommendation: throughput should hold while runnable time drops."
		out = append(out, f)
	}
	return out
}

func checkIOBound(c *evidenceView) []*Finding {
	t := c.in.Trace
	if t == nil || t.Result == nil {
		return nil
	}
	procs := max(t.Result.Procs.GOMAXPROCS, 1)
	var out []*Finding
	for _, g := range userGroups(t.Result) {
		wait := g.SyscallMS + g.Blocked.NetworkMS + g.Blocked.SleepMS
		if g.Count < 2 || (g.Created >= 100 && !longLived(t, g)) || g.RunningMS <= 0 || wait < 3*g.RunningMS || g.RunnableShare.P50 >= 0.1 {
			continue
		}
		rec := recommendWorkers(g, procs)
		if rec.Workers <= 2*g.Count {
			continue
		}
		f := &Finding{Severity: Info, score: wait / g.RunningMS}
		f.Message = fmt.Sprintf("%d goroutines of %s wait on I/O %s× as long as they run and rarely wait for a P: the CPUs are idle while they wait. From their time split %d workers would overlap the waiting (range %d–%d).",
			g.Count, g.Name, f1(wait/g.RunningMS), rec.Workers, rec.Range[0], rec.Range[1])
		f.Evidence = []Evidence{
			{Label: "workers", Value: float64(g.Count), Unit: "goroutines", Source: traceName(c)},
			{Label: "waiting on I/O", Value: wait, Unit: "ms", Source: traceName(c)},
			{Label: "running", Value: g.RunningMS, Unit: "ms", Source: traceName(c)},
			{Label: "recommended workers", Value: float64(rec.Workers), Unit: "goroutines", Source: traceName(c)},
		}
		f.Remedy = fmt.Sprintf("Grow the pool of %s towards %d workers, or batch the I/O.", g.Name, rec.Workers)
		f.Verify = "Sweep worker counts and compare throughput."
		out = append(out, f)
	}
	return out
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
