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
			e := in.Errors[0]
			at := fmt.Sprintf("line %d", e.Line)
			if e.Col > 0 {
				at += fmt.Sprintf(", column %d", e.Col)
			}
			sec.Caveats = append(sec.Caveats, fmt.Sprintf("%s unparsable in %s, the first at %s: %s.", plural(in.NErrors, "gc line"), in.Name, at, e.Msg))
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
		addScanFigures(sec, s, "")
	case len(segs) > 1:
		sec.Title = "Processes"
		sec.Intro = fmt.Sprintf("%d processes in the log, the most GC CPU time first", len(segs))
		sec.Tables = append(sec.Tables, processTable(segs))
		if b := d.Log.Busiest(); b != nil {
			addScanFigures(sec, b, fmt.Sprintf("process %d, the busiest: ", b.Index))
		}
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

// maxScanClasses bounds the size classes the marking table lists.
const maxScanClasses = 5

// addScanFigures adds what the scan lines of GODEBUG=gctrace=2 say about
// a process's marking: which collector marked the heap, and how much of
// its marking ran on dense spans, where Green Tea gains most. who names
// the process in a log of many ("" for a log of one).
func addScanFigures(sec *Section, s *gctrace.Segment, who string) {
	sm := &s.Summary
	if sm.ScanCycles == 0 {
		return
	}
	sc := &sm.Scan
	per := sc.Objects / int64(sm.ScanCycles)
	if !sc.GreenTea {
		sec.Rows = append(sec.Rows, Row{"Collector", fmt.Sprintf("%sthe collector without Green Tea (built with GOEXPERIMENT=nogreenteagc): every object scanned on its own, %s objects a cycle over %s", who, fmt.Sprint(per), plural(sm.ScanCycles, "cycle"))})
		sec.Caveats = append(sec.Caveats, "Green Tea, the default collector from Go 1.26, scans small objects a span at a time; whether it marks this program's heap faster is what gcdoctor bench --goexperiment greenteagc,nogreenteagc measures.")
		return
	}
	pct := func(n int64) string { return fmtNum(100*float64(n)/float64(max(sc.Objects, 1))) + " %" }
	sec.Rows = append(sec.Rows, Row{"Collector", fmt.Sprintf("%sGreen Tea: of %s objects a cycle, %s scanned in dense spans, %s span by span in sparse ones, %s one at a time (%s, gctrace=2)",
		who, fmt.Sprint(per), pct(sc.SpanDense), pct(sc.SpanSparse), pct(sc.Alone), plural(sm.ScanCycles, "cycle"))})
	dense := sm.DenseShare()
	switch {
	case sc.SpanDense == 0:
		sec.Caveats = append(sec.Caveats, "Green Tea scanned no span dense: either no span had an eighth of its objects marked at once, or the CPU lacks the vector kernel dense spans need (amd64 with AVX-512). Its span-by-span scanning still helped where objects were marked together; gcdoctor bench --goexperiment greenteagc,nogreenteagc measures whether it pays off for this program.")
	case dense < 0.25:
		sec.Caveats = append(sec.Caveats, fmt.Sprintf("Only %s of the marking ran on dense spans, where Green Tea gains most: the live objects are spread thinly over their spans, or of sizes Green Tea scans one at a time (8-byte objects, objects over 512 bytes, large objects). Green Tea may gain little over the old collector here; gcdoctor bench --goexperiment greenteagc,nogreenteagc measures it.", pct(sc.SpanDense)))
	}
	t := &Table{Caption: "Marking by size class, the classes with the most objects scanned (gctrace=2)",
		Columns: []Column{{Head: "class", Num: true}, {Head: "objects", Num: true}, {Head: "dense", Num: true}, {Head: "sparse", Num: true}, {Head: "alone", Num: true}}}
	n := min(len(sm.ScanClasses), maxScanClasses)
	for _, c := range sm.ScanClasses[:n] {
		class := fmt.Sprintf("%d B", c.Class)
		if c.Class == gctrace.LargeClass {
			class = "large"
		}
		share := func(v int64) string { return fmtNum(100*float64(v)/float64(max(c.Objects, 1))) + " %" }
		t.Rows = append(t.Rows, TableRow{Cells: []string{class, fmt.Sprint(c.Objects), share(c.SpanDense), share(c.SpanSparse), share(c.Alone)}})
	}
	if n < len(sm.ScanClasses) {
		t.Footer = append(t.Footer, fmt.Sprintf("(%s with fewer objects)", countOf(len(sm.ScanClasses)-n, "more size class", "more size classes")))
	}
	sec.Tables = append(sec.Tables, t)
}
