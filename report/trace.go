package report

import (
	"fmt"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

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

// traceSection prints what an execution trace says: GC pauses and CPU, the
// MMU curve, and the goroutine groups that ran, waited and were created.
func (t *textWriter) traceSection(d *diagnose.Diagnosis) {
	if d.Trace == nil || d.Trace.Result == nil {
		return
	}
	r := d.Trace.Result
	g := &r.GC
	t.printf("\n%s", t.style(ansiBold, "Execution trace"))
	t.printf("  %s\n", t.style(ansiDim, fmt.Sprintf("%s, %s ms, %s, %d P", truncateLeft(d.Trace.Name, 24), fmtNum(float64(r.Duration.Microseconds())/1000), r.GoVersion, r.Procs.GOMAXPROCS)))
	if r.Partial {
		t.printf("  %s\n", t.style(ansiYellow, "PARTIAL: the trace is cut short; figures cover what could be read"))
	}
	row := func(label, value string) { t.wrap(fmt.Sprintf("  %-13s ", label), strings.Repeat(" ", 16), value) }
	row("GC", fmt.Sprintf("%d cycles, marking %s ms of wall time, GC CPU %s%% (%s%% with idle workers)", g.Cycles, fmtNum(g.MarkWallMS), fmtNum(g.CPU.Fraction*100), fmtNum(g.CPU.FractionWithIdle*100)))
	row("STW", fmt.Sprintf("%d stops, p50 %s, p99 %s, max %s ms, %s ms in all", g.STW.Count, fmtNum(g.STW.P50MS), fmtNum(g.STW.P99MS), fmtNum(g.STW.MaxMS), fmtNum(g.STW.TotalMS)))
	var mmu string
	for _, w := range []float64{1, 10, 100, 1000} {
		for _, p := range r.MMU.Points {
			if p.WindowMS == w {
				mmu += fmt.Sprintf("%g ms %s%%  ", w, fmtNum(p.Bounded*100))
			}
		}
	}
	if mmu != "" {
		t.printf("  %-13s %s\n", "MMU", mmu)
	}
	t.printf("  %-13s %d seen, %s created/s, up to %d alive\n", "Goroutines", r.Goroutines.Seen, fmtNum(r.Goroutines.CreatedPerSec), r.Goroutines.PeakLive)
	groups := userGroups(r)
	if len(groups) == 0 {
		return
	}
	n := min(len(groups), 6)
	t.printf("\n  %6s %9s %9s %9s %9s %7s  %s\n", "count", "running", "runnable", "syscall", "blocked", "assist", "goroutine group (ms)")
	for _, gr := range groups[:n] {
		t.printf("  %6d %9s %9s %9s %9s %7s  %s\n", gr.Count, fmtNum(gr.RunningMS), fmtNum(gr.RunnableMS), fmtNum(gr.SyscallMS),
			fmtNum(gr.Blocked.TotalMS()), fmtNum(gr.AssistMS), truncate(shortFunc(gr.Name), max(t.opt.Width-58, 12)))
	}
	if n < len(groups) {
		t.printf("  %s\n", t.style(ansiDim, fmt.Sprintf("(%d more groups; --json lists them all)", len(groups)-n)))
	}
}
