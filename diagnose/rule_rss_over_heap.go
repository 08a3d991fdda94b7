package diagnose

import (
	"fmt"
	"math"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "rss-over-heap",
		Title:    "The process uses far more memory than its Go heap",
		Severity: Warning,
		Rank:     40,
		Evidence: "gctrace + RSS (gcdoctor run), or a running program's own figures",
		Rationale: `Container limits and OOM killers count resident memory (RSS), not the Go
heap. When RSS is far above the heap goal, memory is held outside what GOGC
controls: freed heap pages the runtime has not returned to the OS (lazy
return with MADV_FREE on Go 1.12–1.15, a lazy scavenger), fragmentation,
goroutine stacks, cgo or mmap'd memory.`,
		Detection: `Needs RSS samples, so only for programs run with ` + "`gcdoctor run`" + ` and a
single process in the log: peak RSS ≥ 1.5× the largest heap the gctrace
allows (heap at the end of a cycle, its goal, or the goal the last cycle
set for the next one, which the heap may grow to unseen; plus stacks and
globals) and at least 64 MB more.
From a running program's own figures (attach, doctor URL): its RSS
(process_resident_memory_bytes) at the end of the window against the heap
goal, stacks and globals then, by the same factors.`,
		Remedy: `On Go 1.12–1.15 set GODEBUG=madvdontneed=1 so freed memory leaves RSS at
once (the default again from Go 1.16). ` + docReturnMemory + ` GOMEMLIMIT
counts all memory the runtime manages, not only the heap. If the gap
remains, the memory is not the Go heap: look at cgo allocations, mmap'd
files, and goroutine stacks (a goroutine profile).`,
		Verify: `Rerun under ` + "`gcdoctor run`" + ` and compare the peak RSS with the peak heap.`,
		Versions: `Go 1.12–1.15 return memory with MADV_FREE by default (RSS drops only under
memory pressure); Go ≥ 1.16 uses MADV_DONTNEED again. GOMEMLIMIT from Go 1.19.`,
		checkAll: checkRSS,
		live:     liveRSS,
	})
}

func checkRSS(c *evidenceView) []*Finding {
	in := c.in
	if in.PeakRSS <= 0 || len(in.Log.Segments) != 1 {
		return nil
	}
	s := in.Log.Segments[0]
	sm := &s.Summary
	heap := max(sm.PeakHeapMB, sm.MaxGoalMB, c.nextGoalMB(sm)) + max(sm.MaxStacksMB, 0) + max(sm.MaxGlobalsMB, 0)
	rss := in.PeakRSS >> 20
	if float64(rss) < 1.5*float64(heap) || rss-heap < 64 {
		return nil
	}
	return []*Finding{rssFinding(c, s, rss, heap)}
}

// nextGoalMB returns the heap goal the last cycle set for the next one:
// after the last line of a log the heap may grow to it without another
// cycle (and another line) to show it. 0 when it cannot be known.
func (c *evidenceView) nextGoalMB(sm *gctrace.Summary) int64 {
	if sm.LiveLastMB < 0 || c.off {
		return 0
	}
	return max(sm.LiveLastMB*int64(100+c.gogc)/100, c.minHeapMB())
}

func rssFinding(c *evidenceView, s *gctrace.Segment, rss, heap int64) *Finding {
	sm := &s.Summary
	f := &Finding{Severity: Warning, score: float64(rss - heap)}
	f.Message = fmt.Sprintf("The process reached %s of RSS while its Go heap could not exceed %s (heap, goals, stacks and globals): %s is held outside the heap the GC manages.",
		mb(rss), mb(heap), mb(rss-heap))
	f.Evidence = []Evidence{
		{Label: "peak RSS", Value: float64(rss), Unit: "MB", Source: "RSS samples"},
		{Label: "peak heap incl. goal, stacks, globals", Value: float64(heap), Unit: "MB", Source: span(s)},
	}
	f.Where = []Location{{File: s.Input, Line: sm.PeakHeapLine}}
	v := c.goVersion(s)
	switch {
	case v.atLeast(12) == yes && v.atLeast(16) == no:
		f.Remedy = fmt.Sprintf("%s returns freed memory with MADV_FREE, which leaves it in RSS until the OS needs it: set GODEBUG=madvdontneed=1 (the default from Go 1.16).", v)
	case v.atLeast(19) != no:
		f.Remedy = returnMemory(v)
	default:
		f.Remedy = returnMemory(v) + " Upgrading to Go ≥ 1.19 adds GOMEMLIMIT."
	}
	f.Remedy += " If the gap stays, the memory is not Go heap: check cgo allocations, mmap'd files and goroutine stacks."
	f.Verify = "Rerun under gcdoctor run and compare peak RSS with the peak heap."
	return f
}

func liveRSS(c *evidenceView, v *liveView) *Finding {
	k := v.k
	if !known(k.RSSBytes) || !known(k.HeapGoalBytes) {
		return nil
	}
	heap := math.Max(k.HeapGoalBytes, zeroNaN(k.HeapAllocBytes)) + zeroNaN(k.StackBytes) + zeroNaN(k.GlobalsBytes)
	if k.RSSBytes < 1.5*heap || k.RSSBytes-heap < 64<<20 {
		return nil
	}
	f := &Finding{Severity: Warning, score: k.RSSBytes / heap}
	f.Message = fmt.Sprintf("%s held %s of RSS at the end of the window while its Go heap could not exceed %s (the heap goal, stacks and globals): %s is held outside the heap the GC manages.",
		capFirst(v.who()), mib(k.RSSBytes), mib(heap), mib(k.RSSBytes-heap))
	f.Evidence = []Evidence{
		{Label: "RSS", Value: k.RSSBytes / (1 << 20), Unit: "MB", Source: v.src()},
		{Label: "heap goal, stacks, globals", Value: heap / (1 << 20), Unit: "MB", Source: v.src()},
	}
	f.Remedy = "Freed heap pages the runtime has not returned to the OS, goroutine stacks, cgo or mmap'd memory: on Go ≥ 1.19 GOMEMLIMIT makes the scavenger return memory as the limit nears; on Go 1.12–1.15 set GODEBUG=madvdontneed=1. If the gap stays, look at cgo allocations, mmap'd files and goroutine stacks."
	f.Verify = "Attach again: RSS should come close to the heap goal."
	return f
}
