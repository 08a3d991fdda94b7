package diagnose

import "fmt"

func init() {
	register(&Rule{
		ID: "goroutine-explosion", Title: "Goroutines are started faster than they can run", Severity: Warning, Rank: 35,
		Evidence: "execution trace",
		Rationale: `Starting a goroutine per item (go f() in a loop) with no bound puts
hundreds or thousands of goroutines in the run queue at once. They spend
their lives waiting for a P rather than running, each holds a stack the GC
must scan, and the scheduler's and the collector's work grows with them.`,
		Detection: `A group of the program's goroutines (same start function) spawned one per
item: at least 100 created during the trace, which waited for work (on a
channel, in a select or on a sync.Cond) at most once each on average,
and stopped for anything (system calls included) at most 4 times each,
where a pool's workers wait between items, or for each item's I/O, over
and over. At least 64
(and 8 × GOMAXPROCS) of them alive at once, and their time waiting for a
P (runnable) at least 5× their running time. How long they lived does not
count: on a loaded machine, or with items longer than the scheduler's
10 ms time slice, per-item goroutines take turns on the Ps and live
through the trace like a pool.`,
		Remedy: `Bound the concurrency: a fixed pool of workers reading from a channel,
errgroup.Group with SetLimit, a semaphore channel, or batches with a
WaitGroup per batch. Size the pool with gcdoctor workers.`,
		Verify: `Trace again: the group's runnable time per goroutine and its peak live
count should fall, and the total time with them.`,
		checkAll: checkExplosion,
	})
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
		if !perItem(g) || g.PeakLive < peakFloor || g.RunnableMS < 5*g.RunningMS || g.RunnableMS <= 0 {
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
