package diagnose

import (
	"fmt"
	"math"
)

func init() {
	register(&Rule{
		ID: "workers-cpu-starved", Title: "Too many workers for the CPUs", Severity: Warning, Rank: 36,
		Evidence: "execution trace",
		Rationale: `Workers that spend most of their time runnable are waiting for a P: more of
them than the CPUs can serve only adds queueing, memory and GC work, not
throughput.`,
		Detection: `A group of at least 4 × GOMAXPROCS goroutines kept as a pool: they live
through most of the trace, and either were not started during it or
waited for work (on a channel, in a select or on a sync.Cond) more than
once each on average (goroutine-explosion judges a goroutine per item),
runnable at least twice as
long as they run and sit in syscalls together, and more of them than the
top of the range computed from their time split (gcdoctor workers). With
the machine's CPUs contended for at least half of the run (gcdoctor run's
host.csv), the runnable time is the host's doing as much as the pool's:
the finding says so and is only information.`,
		Remedy: `Shrink the pool to the size computed from its own time split (gcdoctor
workers TRACE --group NAME): P × (1 + waiting/running).`,
		Verify: `Run a sweep of worker counts around the recommendation and trace again:
runnable share should drop while throughput stays.`,
		checkAll: checkStarved,
	})
}

func checkStarved(c *evidenceView) []*Finding {
	t := c.in.Trace
	if t == nil || t.Result == nil {
		return nil
	}
	procs := max(t.Result.Procs.GOMAXPROCS, 1)
	var out []*Finding
	for _, g := range userGroups(t.Result) {
		if g.Count < 4*procs || g.RunnableMS < 2*(g.RunningMS+g.SyscallMS) || perItem(g) || (g.Created >= 100 && !longLived(t, g)) {
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
		if len(c.hostIv) > 0 {
			starvedOnHost(c, f, g)
		}
		out = append(out, f)
	}
	return out
}

// starvedOnHost weighs the runnable time against the machine's CPU
// contention: a goroutine whose thread has no CPU waits as runnable too,
// however many workers there are.
func starvedOnHost(c *evidenceView, f *Finding, g *groupRef) {
	h := c.hostRun()
	if h.busyPct >= 50 {
		f.Severity = Info
		f.Message += fmt.Sprintf(" But the machine's CPUs were contended for %s%% of the run (%s): much of that runnable time is the host's doing, not too many workers.", f1(math.Round(h.busyPct)), h.describe(c.numCPU()))
		if g.Created >= 100 {
			f.Message += fmt.Sprintf(" %d of them were started during the trace: a goroutine per item, which a busy host keeps alive longer.", g.Created)
		}
		f.Remedy = hostRemedy(h) + " Then trace again on a quiet host before resizing the pool. " + f.Remedy
		f.Verify = "Trace again on a quiet host: if the runnable share stays high, shrink the pool."
	} else if h.busyPct < 10 {
		f.Message += fmt.Sprintf(" The host was quiet (%s over the run): the wait is the program's own.", h.describe(c.numCPU()))
	}
	f.Evidence = append(f.Evidence, h.evidence("over the run")...)
}
