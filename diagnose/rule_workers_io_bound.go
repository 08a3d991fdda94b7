package diagnose

import "fmt"

func init() {
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
		if g.Count < 2 || perItem(g) || (g.Created >= 100 && !longLived(t, g)) || g.RunningMS <= 0 || wait < 3*g.RunningMS || g.RunnableShare.P50 >= 0.1 {
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
