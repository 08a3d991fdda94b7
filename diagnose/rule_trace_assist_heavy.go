package diagnose

import (
	"cmp"
	"fmt"
	"slices"
)

func init() {
	register(&Rule{
		ID: "trace-assist-heavy", Title: "Mark assists tax the goroutines that allocate", Severity: Warning, Rank: 39,
		Evidence: "execution trace",
		Rationale: `When the program allocates faster than the background workers mark, the
runtime makes allocating goroutines mark too (mark assists), in the middle
of whatever they were doing — often serving a request. The trace shows
which goroutines paid: that is where the allocation rate is the problem,
not the collector.`,
		Detection: `Mark assists are at least 30% of the GC's mark CPU (dedicated, fractional and
assist time) in a trace where GC takes at least 5% of the CPU.`,
		Remedy: `Reduce the allocation rate of the goroutines that pay the most assist time
(a heap profile of that code path), or give the GC more headroom, as
assist-heavy says of the same problem seen in a gctrace.`,
		Verify: `Trace again: assist time and its share should fall, and the latency of
the paying goroutines with it.`,
		checkAll: checkTraceAssist,
	})
}

func checkTraceAssist(c *evidenceView) []*Finding {
	t := c.in.Trace
	if t == nil || t.Result == nil {
		return nil
	}
	cpu := &t.Result.GC.CPU
	mark := cpu.DedicatedMS + cpu.FractionalMS + cpu.AssistMS
	if mark <= 0 || cpu.AssistMS < 0.3*mark || cpu.Fraction < 0.05 {
		return nil
	}
	groups := userGroups(t.Result)
	slices.SortStableFunc(groups, func(a, b *groupRef) int { return cmp.Compare(b.AssistMS, a.AssistMS) })
	share := cpu.AssistMS / mark
	f := &Finding{Severity: Warning, score: share}
	f.Message = fmt.Sprintf("Mark assists did %s of the GC's marking (%s ms of %s ms) while GC took %s of the CPU.",
		pct(share), f1(cpu.AssistMS), f1(mark), pct(cpu.Fraction))
	f.Evidence = []Evidence{
		{Label: "assist share of mark CPU", Value: share * 100, Unit: "%", Source: traceName(c)},
		{Label: "assist time", Value: cpu.AssistMS, Unit: "ms", Source: traceName(c)},
		{Label: "GC CPU", Value: cpu.Fraction * 100, Unit: "%", Source: traceName(c)},
	}
	if len(groups) > 0 && groups[0].AssistMS > 0 {
		g := groups[0]
		f.Message += fmt.Sprintf(" %s paid the most: %s ms of assists, %s of its running time.", g.Name, f1(g.AssistMS), pct(g.AssistMS/max(g.RunningMS, 1e-9)))
		f.Evidence = append(f.Evidence, Evidence{Label: "assists paid by " + g.Name, Value: g.AssistMS, Unit: "ms", Source: traceName(c)})
		f.Remedy = fmt.Sprintf("Reduce what %s allocates (take a heap profile of that path, then %s), or %s.", g.Name, remedyReuseBuffers, remedyHeadroom)
	} else {
		f.Remedy = "Reduce the allocation rate (heap profile, alloc_space), or " + remedyHeadroom + "."
	}
	f.Verify = "Trace again: the assist share should drop below 30%."
	return []*Finding{f}
}
