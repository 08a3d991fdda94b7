package diagnose

import (
	"fmt"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "assist-heavy",
		Title:    "Mark assists do much of the marking",
		Severity: Warning,
		Rank:     70,
		Evidence: "gctrace",
		Rationale: `When goroutines allocate faster than the background workers mark, the pacer
makes them pay: each allocation first does some marking (a mark assist).
That work lands on whatever goroutine allocates, often a request handler, as
added latency. A large assist share means the allocation rate, not the GC,
is the problem.`,
		Detection: `Assist CPU is ≥ 30% of the mark CPU (assist + background + idle) over at
least 3 cycles and at least 50 ms of mark CPU (a few tiny start-up cycles
say nothing). The finding is a warning when GC CPU is ≥ 5%, information
otherwise.`,
		Remedy: `Reduce the allocation rate at its sources (heap profile, alloc_space; reuse
buffers, preallocate). Giving the GC more headroom also helps: a higher GOGC
(or GOMEMLIMIT on Go ≥ 1.19) starts marking with more room before the goal,
so fewer assists are needed. If GOMAXPROCS is below the CPUs available, the
background workers (25% of P) are starved: check it.`,
		Verify: `Rerun and compare assist_percent and the latency of the allocating path.`,
		check:  checkAssist,
	})
}

func checkAssist(c *evidenceView, s *gctrace.Segment) *Finding {
	sm := &s.Summary
	mark := sm.CPU.Assist + sm.CPU.Background + sm.CPU.Idle
	if sm.Cycles < 3 || mark < 50 || !gctrace.Valid(sm.AssistPercent) || sm.AssistPercent < 30 {
		return nil
	}
	sev := Info
	if gctrace.Valid(sm.GCCPUPercent) && sm.GCCPUPercent >= 5 {
		sev = Warning
	}
	f := &Finding{Severity: sev, score: sm.AssistPercent}
	f.Message = fmt.Sprintf("Mark assists did %s%% of the marking in %s (%s ms of %s ms mark CPU over %d cycles): goroutines that allocate were made to mark.",
		f1(sm.AssistPercent), who(s), f1(sm.CPU.Assist), f1(sm.CPU.Assist+sm.CPU.Background+sm.CPU.Idle), sm.Cycles)
	f.Evidence = []Evidence{
		{Label: "assist share of mark CPU", Value: sm.AssistPercent, Unit: "%", Source: span(s)},
		{Label: "assist CPU", Value: sm.CPU.Assist, Unit: "ms", Source: span(s)},
		{Label: "background mark CPU", Value: sm.CPU.Background, Unit: "ms", Source: span(s)},
	}
	if gctrace.Valid(sm.AllocMBPerS) {
		f.Evidence = append(f.Evidence, Evidence{Label: "allocation rate", Value: sm.AllocMBPerS, Unit: "MB/s", Source: span(s)})
		f.Message += fmt.Sprintf(" The program allocates %s MB/s.", f1(sm.AllocMBPerS))
	}
	f.Remedy = "The allocation rate is the problem, not the GC: cut allocations at their sites (heap profile, alloc_space) — " + remedyReuseBuffers + ". More headroom (higher GOGC"
	if c.goVersion(s).atLeast(19) != no {
		f.Remedy += ", or GOMEMLIMIT with a higher GOGC"
	}
	f.Remedy += ") lets background marking finish before assists are needed."
	f.Verify = fmt.Sprintf("Rerun and compare: the assist share should fall below 30%% (now %s%%).", f1(sm.AssistPercent))
	return f
}
