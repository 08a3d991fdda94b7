package report

import (
	"fmt"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/exectrace"
)

// maxGroups bounds the goroutine groups a report's table lists; JSON has
// them all.
const maxGroups = 8

// traceSection is what an execution trace says: GC pauses and CPU, the MMU
// curve, and the goroutine groups that ran, waited and were created.
func traceSection(d *diagnose.Diagnosis) *Section {
	sec := &Section{ID: "trace", Title: "Execution trace"}
	sec.charts = func(maxPoints int) ([]*chart, []string, error) { return traceCharts(d, maxPoints) }
	if d.Trace == nil || d.Trace.Result == nil {
		return sec
	}
	r := d.Trace.Result
	sec.Source = d.Trace.Name
	sec.Intro = fmt.Sprintf("%s ms, %s, %d P", fmtNum(traceDurationMS(r)), r.GoVersion, r.Procs.GOMAXPROCS)
	if r.Partial {
		sec.Alert = "PARTIAL: the trace is cut short; the figures cover what could be read."
	}
	for _, row := range traceRows(r) {
		sec.Rows = append(sec.Rows, Row{row[0], row[1]})
	}
	if groups := r.UserGroups(); len(groups) > 0 {
		t := &Table{Columns: []Column{{Head: "count", Num: true}, {Head: "running", Num: true}, {Head: "runnable", Num: true},
			{Head: "syscall", Num: true}, {Head: "blocked", Num: true}, {Head: "assist", Num: true}, {Head: "goroutine group (ms)", Flex: true, Func: true}}}
		n := min(len(groups), maxGroups)
		for _, g := range groups[:n] {
			t.Rows = append(t.Rows, TableRow{Cells: []string{fmt.Sprint(g.Count), fmtNum(g.RunningMS), fmtNum(g.RunnableMS), fmtNum(g.SyscallMS),
				fmtNum(g.Blocked.TotalMS()), fmtNum(g.AssistMS), g.Name}})
		}
		if n < len(groups) {
			t.Footer = append(t.Footer, fmt.Sprintf("(%s more; --format json lists them all)", plural(len(groups)-n, "group")))
		}
		sec.Tables = append(sec.Tables, t)
	}
	jt, jg, mmu, groups := traceJSON(d)
	sec.JSON = []Field{{"trace", jt}, {"gc", jg}, {"mmu", mmu}, {"goroutine_groups", groups}}
	return sec
}

func traceCharts(d *diagnose.Diagnosis, maxPoints int) ([]*chart, []string, error) {
	if d.Trace == nil || d.Trace.Result == nil {
		const why = "there is no execution trace in the evidence (gcdoctor attach --seconds N records one)"
		return nil, []string{"No stop-the-world pause charts from a trace: " + why + ".", "No MMU chart: " + why + ".",
			"No goroutine group chart: " + why + "."}, nil
	}
	r := d.Trace.Result
	var charts []*chart
	var missing []string
	add := func(c *chart, err error, what string) error {
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		charts = append(charts, c)
		return nil
	}
	if traceHeap(d) {
		c, err := traceHeapChart(r)
		if err := add(c, err, "heap chart"); err != nil {
			return nil, nil, err
		}
	}
	if len(r.GC.Stops) > 0 {
		c, err := tracePauseTimeline(r, maxPoints)
		if err := add(c, err, "trace pause chart"); err != nil {
			return nil, nil, err
		}
		var ds []float64
		for _, s := range r.GC.Stops {
			ds = append(ds, s.DurationMS)
		}
		st := r.GC.STW
		c, err = pauseHistogram("trace-pause-histogram", "Stop-the-world pause distribution",
			"From the execution trace: how many pauses (the collector's and the others) lasted how long, in buckets of 1-2-5 steps (ms).",
			fmt.Sprintf("%s: p50 %s ms, p95 %s ms, p99 %s ms, max %s ms.", plural(st.Count, "pause"), fmtNum(st.P50MS), fmtNum(st.P95MS), fmtNum(st.P99MS), fmtNum(st.MaxMS)), ds)
		if err := add(c, err, "trace pause histogram"); err != nil {
			return nil, nil, err
		}
	} else {
		missing = append(missing, "No stop-the-world pause charts from the trace: the world was never stopped while it was recorded.")
	}
	switch {
	case len(r.MMU.Points) > 1:
		c, err := mmuChart(r)
		if err := add(c, err, "MMU chart"); err != nil {
			return nil, nil, err
		}
	case len(r.MMU.Points) == 1:
		missing = append(missing, "No MMU chart: the trace is too short for more than one of its windows.")
	default:
		missing = append(missing, "No MMU chart: the trace summary has no MMU curve.")
	}
	if len(r.UserGroups()) > 0 {
		c, err := groupsChart(r)
		if err := add(c, err, "goroutine chart"); err != nil {
			return nil, nil, err
		}
	} else {
		missing = append(missing, "No goroutine group chart: the trace shows only the runtime's own goroutines.")
	}
	return charts, missing, nil
}

// traceHeap reports whether the heap chart comes from the execution trace:
// when there is one with a heap series and no gctrace cycles to draw.
func traceHeap(d *diagnose.Diagnosis) bool {
	return busiestSegment(d) == nil && d.Trace != nil && d.Trace.Result != nil && len(d.Trace.Result.GC.Heap) > 0
}

// traceDurationMS is the trace's length in ms.
func traceDurationMS(r *exectrace.Result) float64 {
	return float64(r.Duration.Microseconds()) / 1000
}

type jsonTraceGC struct {
	Cycles        int        `json:"cycles"`
	MarkWallMS    num        `json:"mark_wall_ms"`
	STWCount      int        `json:"stw_count"`
	STWTotalMS    num        `json:"stw_total_ms"`
	STWP50MS      num        `json:"stw_p50_ms"`
	STWP99MS      num        `json:"stw_p99_ms"`
	STWMaxMS      num        `json:"stw_max_ms"`
	GCSTWTotalMS  num        `json:"gc_stw_total_ms"`
	OtherSTWTotal num        `json:"other_stw_total_ms"`
	CPUFraction   num        `json:"cpu_fraction"`
	CPUWithIdle   num        `json:"cpu_fraction_with_idle"`
	AssistMS      num        `json:"assist_ms"`
	HeapPeakBytes uint64     `json:"heap_peak_bytes"`
	HeapGoalMax   uint64     `json:"heap_goal_max_bytes"`
	Stops         []jsonStop `json:"stops"`
	StopsDropped  int        `json:"stops_not_listed"`
}

type jsonStop struct {
	AtMS       num    `json:"at_ms"`
	DurationMS num    `json:"duration_ms"`
	Reason     string `json:"reason"`
	GC         bool   `json:"gc"`
}

type jsonMMU struct {
	WindowMS    num `json:"window_ms"`
	Utilization num `json:"utilization"`
	Bounded     num `json:"bounded_utilization"`
}

type jsonGroup struct {
	Name             string         `json:"name"`
	Runtime          bool           `json:"runtime"`
	Count            int            `json:"count"`
	Created          int            `json:"created"`
	CreatedPerSec    num            `json:"created_per_s"`
	PeakLive         int            `json:"peak_live"`
	RunningMS        num            `json:"running_ms"`
	RunnableMS       num            `json:"runnable_ms"`
	SyscallMS        num            `json:"syscall_ms"`
	BlockedMS        map[string]num `json:"blocked_ms"`
	AssistMS         num            `json:"assist_ms"`
	RunnableShareP50 num            `json:"runnable_share_p50"`
	RunnableShareP95 num            `json:"runnable_share_p95"`
}

type jsonTrace struct {
	Name        string `json:"name"`
	DurationMS  num    `json:"duration_ms"`
	GoVersion   string `json:"go_version"`
	Partial     bool   `json:"partial"`
	Events      int64  `json:"events"`
	GOMAXPROCS  int    `json:"gomaxprocs"`
	Goroutines  int    `json:"goroutines"`
	CreatedPerS num    `json:"goroutines_created_per_s"`
	PeakLive    int    `json:"goroutines_peak_live"`
}

func traceJSON(d *diagnose.Diagnosis) (*jsonTrace, *jsonTraceGC, []jsonMMU, []jsonGroup) {
	if d.Trace == nil || d.Trace.Result == nil {
		return nil, nil, nil, nil
	}
	r := d.Trace.Result
	jt := &jsonTrace{Name: d.Trace.Name, DurationMS: num(float64(r.Duration.Microseconds()) / 1000), GoVersion: r.GoVersion,
		Partial: r.Partial, Events: r.Events, GOMAXPROCS: r.Procs.GOMAXPROCS, Goroutines: r.Goroutines.Seen,
		CreatedPerS: num(r.Goroutines.CreatedPerSec), PeakLive: r.Goroutines.PeakLive}
	g := &r.GC
	jg := &jsonTraceGC{Cycles: g.Cycles, MarkWallMS: num(g.MarkWallMS), STWCount: g.STW.Count, STWTotalMS: num(g.STW.TotalMS),
		STWP50MS: num(g.STW.P50MS), STWP99MS: num(g.STW.P99MS), STWMaxMS: num(g.STW.MaxMS), GCSTWTotalMS: num(g.GCSTW.TotalMS),
		OtherSTWTotal: num(g.OtherSTW.TotalMS), CPUFraction: num(g.CPU.Fraction), CPUWithIdle: num(g.CPU.FractionWithIdle),
		AssistMS: num(g.CPU.AssistMS), HeapPeakBytes: g.HeapPeakBytes, HeapGoalMax: g.HeapGoalMaxBytes,
		Stops: []jsonStop{}, StopsDropped: g.StopsDropped}
	for _, s := range g.Stops {
		jg.Stops = append(jg.Stops, jsonStop{AtMS: num(s.AtMS), DurationMS: num(s.DurationMS), Reason: s.Reason, GC: s.GC})
	}
	mmu := []jsonMMU{}
	for _, p := range r.MMU.Points {
		mmu = append(mmu, jsonMMU{WindowMS: num(p.WindowMS), Utilization: num(p.Util), Bounded: num(p.Bounded)})
	}
	groups := []jsonGroup{}
	for _, gr := range r.Groups {
		b := gr.Blocked
		groups = append(groups, jsonGroup{Name: gr.Name, Runtime: gr.Runtime, Count: gr.Count, Created: gr.Created,
			CreatedPerSec: num(gr.CreatedPerSec), PeakLive: gr.PeakLive, RunningMS: num(gr.RunningMS), RunnableMS: num(gr.RunnableMS),
			SyscallMS: num(gr.SyscallMS), AssistMS: num(gr.AssistMS),
			BlockedMS: map[string]num{"channel": num(b.ChanMS), "select": num(b.SelectMS), "sync": num(b.SyncMS),
				"network": num(b.NetworkMS), "sleep": num(b.SleepMS), "gc": num(b.GCMS), "other": num(b.OtherMS)},
			RunnableShareP50: num(gr.RunnableShare.P50), RunnableShareP95: num(gr.RunnableShare.P95)})
	}
	return jt, jg, mmu, groups
}
