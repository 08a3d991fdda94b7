package diagnose

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gcdoctor/gcdoctor/bundle"
)

func init() {
	register(&Rule{
		ID:       "rss-held-idle",
		Title:    "Memory stays resident while the program sits idle after a peak",
		Severity: Info,
		Rank:     41,
		Evidence: "RSS + gctrace (gcdoctor run)",
		Rationale: `After a burst (an export, a batch, a cache rebuild) the program may drop its
data, but the memory only goes back to the OS after a collection frees it
and the scavenger returns it. A program that then idles allocates nothing,
so no cycle runs (until the runtime's two-minute periodic GC) and the
process keeps its peak footprint: in a container, memory the others cannot
have; on a node, a candidate for the OOM killer.`,
		Detection: `Needs RSS samples (gcdoctor run) and a single process: after the last GC
cycle the program runs on for at least 1 s (and a fifth of its run)
without another cycle, while its RSS stays at 64 MiB or more and at least
half of its peak, and, where the samples have the program's CPU time, it
uses at most a tenth of a CPU: a program that keeps working without
allocating enough for a cycle is not idle.`,
		Remedy: docReturnMemory + ` If the data is still referenced, a heap profile (inuse_space) taken while idle
shows who holds it. GODEBUG=madvdontneed=1 only matters on Go 1.12–1.15.`,
		Verify: `Rerun under gcdoctor run: the RSS after the burst should fall close to the
live heap.`,
		checkAll: checkRSSIdle,
	})
}

// rssIdleMaxCPU is the most CPU, in CPUs, a program may use after its
// last cycle and still count as idle: timers and a poller take well under
// a percent; a server handling requests takes tens of percent.
const rssIdleMaxCPU = 0.1

func checkRSSIdle(c *evidenceView) []*Finding {
	in := c.in
	if len(in.RSS) < 5 || in.PeakRSS <= 0 || len(in.Log.Segments) != 1 || in.Run == nil {
		return nil
	}
	s := in.Log.Segments[0]
	sm := &s.Summary
	if !validAll(sm.EndS) {
		return nil
	}
	lastGC := time.Duration(sm.EndS * float64(time.Second))
	end := in.RSS[len(in.RSS)-1].Elapsed
	idle := end - lastGC
	if idle < time.Second || float64(idle) < 0.2*float64(end) {
		return nil
	}
	// RSS over the idle tail, leaving half a second for the last cycle's
	// sweeping and scavenging to settle.
	var tail []float64
	var first, last *bundle.RSSSample
	for i := range in.RSS {
		if r := &in.RSS[i]; r.Elapsed >= lastGC+500*time.Millisecond {
			tail = append(tail, float64(r.RSS))
			if first == nil {
				first = r
			}
			last = r
		}
	}
	if len(tail) < 3 {
		return nil
	}
	// A program that keeps working without allocating enough for a cycle
	// is not idle: its heap is below its goal, as the pacer means it to be.
	busy := math.NaN()
	if first.HasCPU && last.HasCPU && last.Elapsed > first.Elapsed {
		busy = float64(last.CPU-first.CPU) / float64(last.Elapsed-first.Elapsed)
		if busy > rssIdleMaxCPU {
			return nil
		}
	}
	slices.Sort(tail)
	held := tail[len(tail)/2] // median
	peak := float64(max(in.PeakRSS, int64(tail[len(tail)-1])))
	if held < 64<<20 || held < 0.5*peak {
		return nil
	}
	f := &Finding{Severity: Info, score: held}
	using := ","
	if !math.IsNaN(busy) {
		using = fmt.Sprintf(", using %s of a CPU,", pct(busy))
	}
	f.Message = fmt.Sprintf("After its last GC cycle (%s s into the run) %s ran %s s more without another cycle%s holding %s of RSS (peak %s).",
		f1(sm.EndS), who(s), f1(idle.Seconds()), using, mb(int64(math.Round(held/(1<<20)))), mb(int64(math.Round(peak/(1<<20)))))
	if sm.LiveLastMB >= 0 {
		f.Message += fmt.Sprintf(" The last cycle found %s live; whatever was dropped since is still resident until a GC runs.", mb(sm.LiveLastMB))
	}
	f.Evidence = []Evidence{
		{Label: "RSS while idle (median)", Value: held / (1 << 20), Unit: "MiB", Source: "RSS samples"},
		{Label: "peak RSS", Value: peak / (1 << 20), Unit: "MiB", Source: "RSS samples"},
		{Label: "idle time after the last cycle", Value: idle.Seconds(), Unit: "s", Source: span(s)},
	}
	if !math.IsNaN(busy) {
		f.Evidence = append(f.Evidence, Evidence{Label: "CPU while idle (of one CPU)", Value: busy * 100, Unit: "%", Source: "RSS samples"})
	}
	f.Where = []Location{{File: s.Input, Line: s.LastLine}}
	f.Remedy = returnMemory(c.goVersion(s)) + " If the data is still referenced, an inuse_space heap profile taken while idle shows who holds it."
	f.Verify = "Rerun under gcdoctor run: RSS after the burst should fall close to the live heap."
	return []*Finding{f}
}

func validAll(vs ...float64) bool {
	for _, v := range vs {
		if v != v { // NaN
			return false
		}
	}
	return true
}
