package diagnose

import (
	"fmt"
	"math"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "live-heap-growth",
		Title:    "The live heap keeps growing",
		Severity: Warning,
		Rank:     90,
		Evidence: "gctrace",
		Rationale: `The live heap is what survives a collection. If it grows steadily, something
keeps references: a cache without bounds, a map that is only added to,
goroutines that never exit, timers or tickers never stopped. The heap goal
grows with it, so memory grows until the process is killed, and every cycle
costs more.`,
		Detection: `A least-squares fit of the live heap against time over at least 6 cycles
and 10 s fits well (R² ≥ 0.7), rises, and the live heap ends ≥ 1.5× and
≥ 8 MB above where it started. A process that ran to completion is not
judged: growing to a peak and exiting is what a batch job or a compiler
does, not a leak. That is a run of gcdoctor that ended on its own with
status 0, or a process of a build's log (the go command's "# pkg"
headers).`,
		Remedy: `Take two heap profiles some minutes apart and compare what is in use:
` + "`go tool pprof -sample_index=inuse_space -diff_base=heap1.pb.gz heap2.pb.gz`" + `.
Bound caches (size or TTL), delete map entries, stop tickers, make sure
goroutines exit (a goroutine profile shows them). If the program is only
warming up, observe it longer: a live heap that levels off is not a leak.`,
		Verify: `Observe for longer than before: live_slope_mb_per_s should be near zero and
the live heap flat.`,
		check: checkLiveGrowth,
	})
}

func checkLiveGrowth(c *evidenceView, s *gctrace.Segment) *Finding {
	sm := &s.Summary
	if c.batch(s) {
		return nil
	}
	if sm.Cycles < 6 || !gctrace.Valid(sm.WallS) || sm.WallS < 10 || !gctrace.Valid(sm.LiveSlope) || !gctrace.Valid(sm.LiveR2) {
		return nil
	}
	if sm.LiveSlope <= 0 || sm.LiveR2 < 0.7 || sm.LiveFirstMB < 0 {
		return nil
	}
	growth := sm.LiveLastMB - sm.LiveFirstMB
	if growth < 8 || float64(sm.LiveLastMB) < 1.5*float64(max(sm.LiveFirstMB, 1)) {
		return nil
	}
	perMin := sm.LiveSlope * 60
	f := &Finding{Severity: Warning, score: perMin}
	f.Message = fmt.Sprintf("The live heap of %s grew from %s to %s in %s s (%s MB/min, R² %s).",
		who(s), mb(sm.LiveFirstMB), mb(sm.LiveLastMB), f1(sm.WallS), f1(perMin), f1(sm.LiveR2))
	if hour := float64(sm.LiveLastMB) + sm.LiveSlope*3600; sm.WallS >= 300 && hour < math.MaxInt32 {
		f.Message += fmt.Sprintf(" At this rate it would hold %s after another hour, and the heap goal more.", mb(int64(hour)))
	} else if sm.WallS < 300 {
		f.Message += " Observe it longer to tell a leak from warm-up."
	}
	f.Evidence = []Evidence{
		{Label: "live heap at start", Value: float64(sm.LiveFirstMB), Unit: "MB", Source: at(s, s.FirstLine)},
		{Label: "live heap at end", Value: float64(sm.LiveLastMB), Unit: "MB", Source: at(s, s.LastLine)},
		{Label: "trend", Value: perMin, Unit: "MB/min", Source: span(s)},
		{Label: "fit R²", Value: sm.LiveR2, Unit: "", Source: span(s)},
	}
	f.Caveats = []string{fmt.Sprintf("observed for %s s only: a program that is warming up grows too", f1(sm.WallS))}
	f.Remedy = "Compare two heap profiles taken minutes apart (inuse_space, -diff_base) to see what accumulates; bound caches, delete map entries, stop tickers, make goroutines exit."
	f.Verify = "Observe for longer: the live heap should level off (trend near 0 MB/min)."
	return f
}
