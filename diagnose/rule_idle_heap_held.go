package diagnose

import (
	"fmt"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "idle-heap-held",
		Title:    "A large heap is held while the program is idle",
		Severity: Info,
		Rank:     100,
		Evidence: "gctrace",
		Rationale: `A program that allocates little between collections (cycles minutes apart,
or only the runtime's periodic two-minute GC) but keeps a large live heap
holds memory it is not using for work: caches, buffers kept for a peak that
passed, data loaded once. It is memory other processes cannot have, and on
Go versions whose scavenger is lazy the process keeps the freed part too.`,
		Detection: `Live heap ≥ 64 MB (or heap ≥ 64 MB when the format has no live figure)
while the program is idle: at least half of its cycles are the periodic
forced GC, or it averages one cycle per 30 s or less over at least 3
cycles.`,
		Remedy: `Find what the live heap holds: a heap profile with -sample_index=inuse_space
while idle. Bound or expire caches; release buffers after a peak. ` + docReturnMemory,
		Verify: `Check the live heap while idle after the change (gctrace or
/debug/pprof/heap) and the process RSS.`,
		check: checkIdle,
	})
}

func checkIdle(c *evidenceView, s *gctrace.Segment) *Finding {
	sm := &s.Summary
	if sm.Cycles < 3 && sm.Periodic == 0 {
		return nil
	}
	held := sm.LiveMaxMB
	what := "live heap"
	if held < 0 {
		held = sm.PeakHeapMB
		what = "heap"
	}
	if held < 64 {
		return nil
	}
	periodic := sm.Periodic*2 >= sm.Cycles && sm.Periodic > 0
	slow := gctrace.Valid(sm.GCPerSecond) && sm.GCPerSecond <= 1.0/30 && sm.Cycles >= 3
	if !periodic && !slow {
		return nil
	}
	f := &Finding{Severity: Info, score: float64(held)}
	switch {
	case periodic:
		f.Message = fmt.Sprintf("%d of %d cycles of %s were the runtime's periodic GC (two minutes without one), yet it holds a %s of %s.",
			sm.Periodic, sm.Cycles, who(s), what, mb(held))
	default:
		f.Message = fmt.Sprintf("%s runs one GC every %s s on average, so it allocates little, yet it holds a %s of up to %s.",
			capWho(s), f1(1/sm.GCPerSecond), what, mb(held))
	}
	if gctrace.Valid(sm.AllocMBPerS) {
		f.Message += fmt.Sprintf(" It allocates %s MB/s between cycles.", f1(sm.AllocMBPerS))
	}
	f.Evidence = []Evidence{
		{Label: what, Value: float64(held), Unit: "MB", Source: span(s)},
		{Label: "periodic cycles", Value: float64(sm.Periodic), Unit: "cycles", Source: span(s)},
	}
	if gctrace.Valid(sm.GCPerSecond) {
		f.Evidence = append(f.Evidence, Evidence{Label: "time between cycles", Value: 1 / sm.GCPerSecond, Unit: "s", Source: span(s)})
	}
	if s.Scavenges > 0 {
		f.Evidence = append(f.Evidence, Evidence{Label: "scavenger lines", Value: float64(s.Scavenges), Unit: "lines", Source: span(s)})
	}
	f.Remedy = "See what the idle heap holds with an inuse_space heap profile; bound or expire caches and drop buffers kept from a past peak. " + returnMemory(c.goVersion(s))
	f.Verify = "Compare the live heap while idle, and the RSS, after the change."
	return f
}
