package diagnose

import (
	"fmt"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "forced-gc",
		Title:    "The program forces garbage collections",
		Severity: Warning,
		Rank:     80,
		Evidence: "gctrace",
		Rationale: `runtime.GC() and debug.FreeOSMemory() start a full collection and block
the caller until it is done, whatever the pacer would have decided. Called
in a loop or per request (a pattern from old advice), they multiply GC work
without freeing anything the next automatic cycle would not have freed.`,
		Detection: `At least 3 cycles marked "(forced)": a warning when they are at least 20%
of all cycles (listed first, and critical when GC CPU is ≥ 25%, once they
are half of all cycles), information otherwise (benchmarks, for one, force
a GC between runs). One or two forced cycles are deliberate calls, such as
the single debug.FreeOSMemory() after a peak that rss-held-idle advises,
and are not reported. The runtime's periodic GC after two minutes without
one is not forced by the program and is not counted.`,
		Remedy: `Remove runtime.GC() calls from loops and request paths: the pacer decides
better. ` + docReturnMemory,
		Verify: `Rerun: forced_cycles should be 0 (or the few deliberate calls left).`,
		check:  checkForced,
	})
}

func checkForced(c *evidenceView, s *gctrace.Segment) *Finding {
	sm := &s.Summary
	// One or two are deliberate: a FreeOSMemory after a peak, as this
	// tool advises, or a collection before a measurement.
	if sm.Forced < 3 {
		return nil
	}
	share := float64(sm.Forced) / float64(sm.Cycles) * 100
	sev := Info
	if share >= 20 {
		sev = Warning
	}
	f := &Finding{Severity: sev, score: float64(sm.Forced)}
	if share >= 50 {
		// Forced cycles are then what the GC costs: list this first, and
		// as urgent as the CPU it takes.
		f.rank = 15
		if gctrace.Valid(sm.GCCPUPercent) && sm.GCCPUPercent >= 25 {
			f.Severity = Critical
		}
	}
	f.Message = fmt.Sprintf("%d of %d cycles of %s (%s%%) were forced by runtime.GC or debug.FreeOSMemory.",
		sm.Forced, sm.Cycles, who(s), f1(share))
	f.Evidence = []Evidence{
		{Label: "forced cycles", Value: float64(sm.Forced), Unit: "cycles", Source: span(s)},
		{Label: "share of cycles", Value: share, Unit: "%", Source: span(s)},
	}
	if gctrace.Valid(sm.WallS) && sm.WallS > 0 {
		rate := float64(sm.Forced) / sm.WallS
		f.Evidence = append(f.Evidence, Evidence{Label: "forced cycles per second", Value: rate, Unit: "/s", Source: span(s)})
		if rate >= 1 {
			f.Message += fmt.Sprintf(" That is %s forced cycles per second: runtime.GC() is being called in a loop.", f1(rate))
		}
	}
	if sm.FirstForcedLine > 0 {
		f.Where = []Location{{File: s.Input, Line: sm.FirstForcedLine}}
	}
	f.Remedy = "Remove runtime.GC() from loops and request paths: each call runs a full collection and blocks its caller. " + returnMemory(c.goVersion(s))
	if sev == Info {
		f.Remedy += " A few forced cycles are normal in benchmarks and tests."
	}
	f.Verify = "Rerun: the count of (forced) cycles should drop to the deliberate calls only."
	return f
}
