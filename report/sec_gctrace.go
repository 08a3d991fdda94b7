package report

import (
	"fmt"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
)

// maxProcesses bounds the processes a report's table lists; JSON has them
// all.
const maxProcesses = 8

// gctraceSection is what the gctrace log says: the headline figures of a
// single process, or the costliest processes of a log of many. JSON always
// has its keys, empty without a log.
func gctraceSection(d *diagnose.Diagnosis) *Section {
	sec := &Section{ID: "gc", Title: "GC cycles"}
	segs := d.Log.Segments
	for _, in := range d.Log.Inputs {
		if in.NErrors > 0 && (d.Run == nil || in.NErrors != 1 || !in.Partial) {
			sec.Caveats = append(sec.Caveats, fmt.Sprintf("%s unparsable in %s, the first at %v.", plural(in.NErrors, "gc line"), in.Name, in.Errors[0]))
		}
	}
	switch {
	case len(segs) == 1:
		s := segs[0]
		sec.Title = "GC at a glance"
		sec.Intro = fmt.Sprintf("%s, gc %d–%d, %s format", linesWord(s), s.Summary.FirstGC, s.Summary.LastGC, s.Format)
		for _, r := range glanceRows(s, inlineCaveat) {
			sec.Rows = append(sec.Rows, Row{r[0], r[1]})
		}
		sec.Caveats = append(sec.Caveats, s.Caveats...)
	case len(segs) > 1:
		sec.Title = "Processes"
		sec.Intro = fmt.Sprintf("%d processes in the log, the most GC CPU time first", len(segs))
		sec.Tables = append(sec.Tables, processTable(segs))
	}
	sec.JSON = gctraceJSON(d)
	sec.charts = func(maxPoints int) ([]*chart, []string, error) { return gctraceCharts(d, maxPoints) }
	return sec
}

// processTable lists the costliest processes of a log.
func processTable(segs []*gctrace.Segment) *Table {
	t := &Table{Columns: []Column{{Head: "#", Num: true}, {Head: "lines"}, {Head: "label", Flex: true},
		{Head: "cycles", Num: true}, {Head: "GC CPU", Num: true}, {Head: "max STW", Num: true}, {Head: "peak heap", Num: true}}}
	shown := costliest(segs)
	n := min(len(shown), maxProcesses)
	for _, s := range shown[:n] {
		label := strings.TrimPrefix(s.Label, "# ")
		if label == "" {
			label = s.Process
		}
		if label == "" {
			label = "-"
		}
		cpu := "n/a"
		if gctrace.Valid(s.Summary.GCCPUPercent) {
			cpu = fmtNum(s.Summary.GCCPUPercent) + " %"
		}
		t.Rows = append(t.Rows, TableRow{Cells: []string{fmt.Sprint(s.Index), lineSpan(s), label, fmt.Sprint(s.Summary.Cycles),
			cpu, fmtNum(s.Summary.MaxPauseMS) + " ms", fmt.Sprintf("%d MB", s.Summary.PeakHeapMB)}})
	}
	if n < len(segs) {
		t.Footer = append(t.Footer, fmt.Sprintf("(%s with less GC CPU time; --format json lists them all)", countOf(len(segs)-n, "more process", "more processes")))
	}
	return t
}

// gctraceCharts draws the heap, the pauses and the GC CPU of the busiest
// process over time.
func gctraceCharts(d *diagnose.Diagnosis, maxPoints int) ([]*chart, []string, error) {
	s := busiestSegment(d)
	if s == nil {
		why := "there is no gctrace log in the evidence (GODEBUG=gctrace=1, or gcdoctor run, records one)"
		if len(d.Log.Segments) > 0 {
			why = "the gctrace cycles were not kept when the log was read (gcdoctor gctrace --cycles keeps them)"
		}
		heap := "No heap-over-time chart from gctrace: " + why + "."
		if traceHeap(d) {
			heap = "No heap-over-time chart from gctrace: " + why + "; the execution trace's is below."
		}
		return nil, []string{heap, "No GC pause charts from gctrace: " + why + ".", "No GC CPU chart: " + why + "."}, nil
	}
	var charts []*chart
	var missing []string
	c, err := heapChart(d, s, maxPoints)
	if err != nil {
		return nil, nil, fmt.Errorf("heap chart: %w", err)
	}
	charts = append(charts, c)
	if c, err = pauseTimeline(d, s, maxPoints); err != nil {
		return nil, nil, fmt.Errorf("pause chart: %w", err)
	}
	charts = append(charts, c)
	sm := &s.Summary
	c, err = pauseHistogram("pause-histogram", "GC pause distribution",
		fmt.Sprintf("From the gctrace of %s: how many stop-the-world phases lasted how long, in buckets of 1-2-5 steps (ms).", segmentName(d, s)),
		fmt.Sprintf("%s: p50 %s ms, p95 %s ms, p99 %s ms, max %s ms.", plural(sm.Pauses, "pause"), fmtNum(sm.P50PauseMS), fmtNum(sm.P95PauseMS), fmtNum(sm.P99PauseMS), fmtNum(sm.MaxPauseMS)),
		gctracePauses(s.Cycles))
	if err != nil {
		return nil, nil, fmt.Errorf("pause histogram: %w", err)
	}
	charts = append(charts, c)
	c, err = gcCPUChart(d, s, maxPoints)
	if err != nil {
		return nil, nil, fmt.Errorf("GC CPU chart: %w", err)
	}
	if c != nil {
		charts = append(charts, c)
	} else {
		missing = append(missing, "No GC CPU chart: this log format has neither timestamps nor the runtime's GC CPU figure (Go 1.5 and later print both).")
	}
	if s.CyclesTruncated {
		for _, c := range charts {
			c.Caption += fmt.Sprintf(" Only the first %d of the process's %d cycles were kept when the log was read: the chart draws those.", len(s.Cycles), s.Summary.Cycles)
		}
	}
	return charts, missing, nil
}

// busiestSegment returns the process the charts show: the busiest of
// those whose cycles were kept.
func busiestSegment(d *diagnose.Diagnosis) *gctrace.Segment {
	if b := d.Log.Busiest(); b != nil && len(b.Cycles) > 0 {
		return b
	}
	var best *gctrace.Segment
	for _, s := range d.Log.Segments {
		if len(s.Cycles) > 0 && (best == nil || len(s.Cycles) > len(best.Cycles)) {
			best = s
		}
	}
	return best
}
