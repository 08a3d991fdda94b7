package diagnose

import (
	"fmt"
	"sort"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// CrossCheck compares one figure that the gctrace and the execution trace
// both give. The two rarely cover the same span (a trace is seconds of a
// run, the gctrace all of it), so each check compares what must agree when
// both come from the same process: a disagreement means they do not, or
// that one of them is damaged, and the figures built on both are suspect.
type CrossCheck struct {
	What    string // the figure compared
	GCTrace string // what the gctrace says, with its lines
	Trace   string // what the execution trace says
	Agree   bool
	Note    string // what the agreement or the disagreement means
	// The figures as numbers, in Unit: the trace's, and the range the
	// gctrace allows.
	TraceValue           float64
	GCTraceLo, GCTraceHi float64
	Unit                 string
	// Segment is the gctrace process compared.
	Segment *gctrace.Segment
}

// crossCheck compares the trace with the gctrace process that has the most
// cycles with timestamps.
// runEnd is when the process ended, in seconds since it started (a run's
// wall time), 0 when unknown: a process that ran on after its last cycle
// has windows without cycles, which the trace may have caught.
func crossCheck(log *gctrace.Log, te *TraceEvidence, runEnd float64) []CrossCheck {
	if log == nil || te == nil || te.Result == nil {
		return nil
	}
	var seg *gctrace.Segment
	for _, s := range log.Segments {
		if len(s.Cycles) > 0 && s.Cycles[0].HasAt && (seg == nil || len(s.Cycles) > len(seg.Cycles)) {
			seg = s
		}
	}
	if seg == nil {
		return nil
	}
	r := te.Result
	var out []CrossCheck

	// GOMAXPROCS: every gctrace line prints the P count of its cycle.
	if p := r.Procs.GOMAXPROCS; p > 0 {
		procs := map[int]bool{}
		for i := range seg.Cycles {
			procs[seg.Cycles[i].Procs] = true
		}
		c := CrossCheck{What: "GOMAXPROCS", Trace: fmt.Sprintf("%d", p), Agree: procs[p], TraceValue: float64(p), Unit: "P", Segment: seg}
		var ps []int
		for n := range procs {
			ps = append(ps, n)
		}
		sort.Ints(ps)
		c.GCTraceLo, c.GCTraceHi = float64(ps[0]), float64(ps[len(ps)-1])
		c.GCTrace = fmt.Sprintf("%v P (%s)", ps, span(seg))
		if len(ps) == 1 {
			c.GCTrace = fmt.Sprintf("%d P (%s)", ps[0], span(seg))
		}
		if c.Agree {
			c.Note = "the same P count"
		} else {
			c.Note = "no cycle of the gctrace ran with the trace's P count: the two come from different processes or settings"
		}
		out = append(out, c)
	}

	// GC cycles: the trace counts the cycles whose mark ended in its span;
	// some window of the gctrace as long as the trace must hold about as
	// many, if the trace was taken while the gctrace was printed.
	if d := r.Duration.Seconds(); d > 0 && len(seg.Cycles) >= 2 && !seg.CyclesTruncated {
		if len(log.Segments) > 1 {
			runEnd = 0 // the run's end is not this process's
		}
		lo, hi := windowCounts(seg.Cycles, d, runEnd)
		n := r.GC.Cycles
		c := CrossCheck{What: "GC cycles in " + seconds(d), Trace: fmt.Sprintf("%d cycles", n),
			GCTrace:    fmt.Sprintf("%d–%d cycles in any %s window (%s)", lo, hi, seconds(d), span(seg)),
			TraceValue: float64(n), GCTraceLo: float64(lo), GCTraceHi: float64(hi), Unit: "cycles", Segment: seg}
		// One cycle either way: a window's edges cut cycles that the
		// trace, counting ends of mark, places on the other side.
		c.Agree = n >= lo-1 && n <= hi+1
		if c.Agree {
			c.Note = "the trace's cycle count fits a window of the gctrace"
		} else {
			c.Note = fmt.Sprintf("no %s window of the gctrace has %d cycles: the trace was not taken during this run, or one of the two is incomplete", seconds(d), n)
		}
		out = append(out, c)
	}
	return out
}

// windowCounts returns the fewest and most cycles that start within any
// window of d seconds lying wholly inside the span of the cycles, or of
// the process up to runEnd when that is later.
func windowCounts(cs []gctrace.Cycle, d, runEnd float64) (lo, hi int) {
	at := make([]float64, 0, len(cs))
	for i := range cs {
		if cs[i].HasAt {
			at = append(at, cs[i].At)
		}
	}
	sort.Float64s(at)
	if len(at) > 0 && runEnd > at[len(at)-1]+d {
		// Quiet after its last cycle for longer than the trace: a window
		// with no cycle at all fits.
		lo, hi = windowCounts(cs, d, 0)
		return 0, hi
	}
	if len(at) == 0 || at[len(at)-1]-at[0] < d {
		// The whole run is shorter than the trace: the trace can have
		// no more cycles than the run, nor many fewer.
		return len(at), len(at)
	}
	lo, hi = len(at), 0
	// The count changes only when a window edge crosses a cycle: try the
	// windows that start at a cycle and those that end at one.
	count := func(start float64) int {
		i := sort.SearchFloat64s(at, start)
		j := sort.SearchFloat64s(at, start+d)
		return j - i
	}
	last := at[len(at)-1]
	for _, t := range at {
		for _, start := range []float64{t, t - d} {
			if start < at[0] || start+d > last {
				continue
			}
			n := count(start)
			lo, hi = min(lo, n), max(hi, n)
		}
	}
	return lo, hi
}

// seconds formats a span: "2.0 s", or "12 ms" below a second.
func seconds(s float64) string {
	if s < 1 {
		return f1(s*1000) + " ms"
	}
	return fmt.Sprintf("%.1f s", s)
}
