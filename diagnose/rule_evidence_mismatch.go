package diagnose

import "fmt"

func init() {
	register(&Rule{
		ID: "evidence-mismatch", Title: "The gctrace and the execution trace disagree", Severity: Warning, Rank: 5,
		Evidence: "gctrace + execution trace",
		Rationale: `A diagnosis that joins a gctrace and an execution trace assumes they
describe the same process. When they do not (a trace taken from another
replica, an old log in the bundle, a GOMAXPROCS changed between the two),
figures from one explain nothing in the other.`,
		Detection: `The execution trace's GOMAXPROCS is not that of any gctrace cycle, or
no window of the gctrace as long as the trace holds as many GC cycles as
the trace (one cycle of slack either way).`,
		Remedy: `Collect both from the same run: gcdoctor run records the gctrace, and
gcdoctor attach --seconds N fetches a trace from the same process while it
runs; or diagnose each separately (gcdoctor gctrace, gcdoctor trace).`,
		Verify: `gcdoctor doctor on the new bundle lists both cross-checks as agreeing.`,
		checkAll: func(c *evidenceView) []*Finding {
			var out []*Finding
			for _, x := range c.crossChecks {
				if x.Agree {
					continue
				}
				f := &Finding{Severity: Warning, score: 1,
					Message: fmt.Sprintf("%s: the gctrace says %s, the execution trace %s: %s.", x.What, x.GCTrace, x.Trace, x.Note)}
				s := x.Segment
				f.Evidence = []Evidence{
					{Label: x.What + ", trace", Value: x.TraceValue, Unit: x.Unit, Source: c.in.Trace.Name},
					{Label: x.What + ", gctrace at least", Value: x.GCTraceLo, Unit: x.Unit, Source: span(s)},
					{Label: x.What + ", gctrace at most", Value: x.GCTraceHi, Unit: x.Unit, Source: span(s)},
				}
				f.Where = []Location{{File: s.Input, Line: s.FirstLine, EndLine: s.LastLine}}
				f.Remedy = "Collect the gctrace and the trace from the same run (gcdoctor run, then gcdoctor attach --seconds N while it runs), or read each on its own (gcdoctor gctrace, gcdoctor trace)."
				f.Verify = "gcdoctor doctor on the new evidence lists the cross-checks as agreeing."
				out = append(out, f)
			}
			return out
		},
	})
}
