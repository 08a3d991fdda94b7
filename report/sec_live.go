package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/live"
)

// liveSection is what a running program served about its own GC over the
// window attach sampled it: the figures a gctrace log of the window would
// give. JSON always has its key, null without such evidence.
func liveSection(d *diagnose.Diagnosis) *Section {
	sec := &Section{ID: "live", Title: "The running program's GC"}
	if d.Live == nil || d.Live.KPIs == nil {
		sec.JSON = []Field{{"live", nil}}
		return sec
	}
	k := d.Live.KPIs
	sec.Source = d.Live.Name
	sec.Intro = fmt.Sprintf("its own figures over a %s s window, from %s", fmtNum(k.WindowS), sourceNames(k.Sources))
	row := func(label, value string) {
		if value != "" {
			sec.Rows = append(sec.Rows, Row{label, value})
		}
	}
	row("GC cycles", liveCycles(k))
	row("GC CPU", liveCPU(k))
	row("Pauses", livePauses(k))
	if known(k.AllocBytesPerSecond) {
		row("Allocation", fmt.Sprintf("%s MB/s, %s in the window", fmtNum(k.AllocBytesPerSecond/(1<<20)), fmtBytes(int64(k.AllocBytes))))
	}
	row("Heap", liveHeap(k))
	row("Settings", liveSettings(k))
	if known(k.RSSBytes) || known(k.MaxRSSBytes) {
		rss := []string{}
		if known(k.RSSBytes) {
			rss = append(rss, fmtBytes(int64(k.RSSBytes))+" at the end")
		}
		if known(k.MaxRSSBytes) {
			rss = append(rss, "peak "+fmtBytes(int64(k.MaxRSSBytes)))
		}
		row("RSS", strings.Join(rss, ", "))
	}
	if known(k.Goroutines) {
		row("Goroutines", fmt.Sprintf("%.0f at the end", k.Goroutines))
	}
	if known(k.SchedLatencyP99MS) {
		row("Run queue", fmt.Sprintf("p99 wait %s ms before running", fmtNum(k.SchedLatencyP99MS)))
	}
	if len(d.Live.Agent) > 0 {
		row("Agent", "added "+strings.Join(d.Live.Agent, "; "))
	}
	if !k.GCCPU.Exact && known(k.GCCPU.Fraction) {
		sec.Caveats = append(sec.Caveats, "GC CPU is "+k.GCCPU.From)
	}
	if !k.Pauses.Window && k.Pauses.From != "" {
		sec.Caveats = append(sec.Caveats, "pauses: "+k.Pauses.From)
	}
	sec.Caveats = append(sec.Caveats, k.Caveats...)
	sec.JSON = []Field{{"live", liveJSON(d.Live)}}
	return sec
}

func known(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func sourceNames(srcs []live.Source) string {
	var out []string
	for _, s := range srcs {
		out = append(out, "/"+s.Path())
	}
	return strings.Join(out, ", ")
}

func liveCycles(k *live.KPIs) string {
	if !known(k.CyclesPerSecond) {
		return ""
	}
	s := fmt.Sprintf("%d, %s/s", k.Cycles, fmtNum(k.CyclesPerSecond))
	if k.Forced > 0 {
		s += fmt.Sprintf(" (%d forced)", k.Forced)
	}
	return s
}

func liveCPU(k *live.KPIs) string {
	c := k.GCCPU
	if !known(c.Fraction) {
		return "unknown"
	}
	procs := ""
	if k.GOMAXPROCS > 0 {
		procs = fmt.Sprintf(" of %d P", k.GOMAXPROCS)
	}
	switch {
	case c.Exact:
		return fmt.Sprintf("%s %%%s, measured by the runtime", fmtNum(c.Fraction*100), procs)
	case known(c.Low):
		return fmt.Sprintf("about %s %%%s (estimate, %s–%s %%)", fmtNum(c.Fraction*100), procs, fmtNum(c.Low*100), fmtNum(c.High*100))
	}
	return fmt.Sprintf("%s %%%s since the process started (the runtime's average)", fmtNum(c.Fraction*100), procs)
}

func livePauses(k *live.KPIs) string {
	p := k.Pauses
	if !known(p.MaxMS) {
		return ""
	}
	what := "pauses"
	if p.PerCycle {
		what = "cycles"
	}
	s := fmt.Sprintf("max %s ms, p50 %s ms", fmtNum(p.MaxMS), fmtNum(p.P50MS))
	if known(p.P99MS) {
		s += fmt.Sprintf(", p99 %s ms", fmtNum(p.P99MS))
	}
	return s + fmt.Sprintf(" (%d %s)", p.Count, what)
}

func liveHeap(k *live.KPIs) string {
	var parts []string
	if known(k.HeapAllocBytes) {
		parts = append(parts, fmtBytes(int64(k.HeapAllocBytes))+" allocated")
	}
	if known(k.HeapGoalBytes) {
		parts = append(parts, "goal "+fmtBytes(int64(k.HeapGoalBytes)))
	}
	if known(k.LiveHeapBytes) {
		l := "live " + fmtBytes(int64(k.LiveHeapBytes))
		if k.LiveEstimated {
			l += " (estimated from the goal)"
		}
		parts = append(parts, l)
	}
	if known(k.StackBytes) {
		parts = append(parts, "stacks "+fmtBytes(int64(k.StackBytes)))
	}
	if known(k.GlobalsBytes) {
		parts = append(parts, "globals "+fmtBytes(int64(k.GlobalsBytes)))
	}
	return strings.Join(parts, ", ")
}

func liveSettings(k *live.KPIs) string {
	var parts []string
	switch {
	case k.GOGC < 0:
		parts = append(parts, "GOGC off")
	case k.GOGC > 0:
		parts = append(parts, fmt.Sprintf("GOGC %d", k.GOGC))
	}
	switch lim := k.MemoryLimitBytes; {
	case math.IsInf(lim, 1):
		parts = append(parts, "no GOMEMLIMIT")
	case known(lim):
		parts = append(parts, "GOMEMLIMIT "+fmtBytes(int64(lim)))
	}
	if k.GOMAXPROCS > 0 {
		parts = append(parts, fmt.Sprintf("GOMAXPROCS %d", k.GOMAXPROCS))
	}
	if k.GoVersion != "" {
		parts = append(parts, k.GoVersion)
	}
	return strings.Join(parts, ", ")
}

// jsonLive is the "live" object of the JSON document (docs/json.md).
type jsonLive struct {
	WindowS             num      `json:"window_s"`
	Sources             []string `json:"sources"`
	GoVersion           string   `json:"go_version"`
	GCCycles            int      `json:"gc_cycles"`
	GCCyclesPerSecond   num      `json:"gc_cycles_per_second"`
	GCForced            int      `json:"gc_forced"`
	GCCPUFraction       num      `json:"gc_cpu_fraction"`
	GCCPUExact          bool     `json:"gc_cpu_exact"`
	GCCPULow            num      `json:"gc_cpu_low"`
	GCCPUHigh           num      `json:"gc_cpu_high"`
	GCCPUFrom           string   `json:"gc_cpu_from"`
	GCCPUSinceStart     num      `json:"gc_cpu_since_start"`
	MarkShare           num      `json:"mark_share"`
	PauseMaxMS          num      `json:"pause_max_ms"`
	PauseP50MS          num      `json:"pause_p50_ms"`
	PauseP99MS          num      `json:"pause_p99_ms"`
	PauseTotalMS        num      `json:"pause_total_ms"`
	PauseCount          int      `json:"pause_count"`
	PausePerCycle       bool     `json:"pause_per_cycle"`
	PauseWindow         bool     `json:"pause_window"`
	PauseFrom           string   `json:"pause_from"`
	AllocBytes          num      `json:"alloc_bytes"`
	AllocBytesPerSecond num      `json:"alloc_bytes_per_second"`
	HeapAllocBytes      num      `json:"heap_alloc_bytes"`
	HeapGoalBytes       num      `json:"heap_goal_bytes"`
	LiveHeapBytes       num      `json:"live_heap_bytes"`
	LiveHeapEstimated   bool     `json:"live_heap_estimated"`
	StackBytes          num      `json:"stack_bytes"`
	GlobalsBytes        num      `json:"globals_bytes"`
	GOGC                *int     `json:"gogc"`
	GOMEMLIMITBytes     num      `json:"gomemlimit_bytes"`
	GOMEMLIMITSet       *bool    `json:"gomemlimit_set"`
	GOMAXPROCS          int      `json:"gomaxprocs"`
	RSSBytes            num      `json:"rss_bytes"`
	MaxRSSBytes         num      `json:"max_rss_bytes"`
	SchedLatencyP99MS   num      `json:"sched_latency_p99_ms"`
	Goroutines          num      `json:"goroutines"`
	Agent               []string `json:"agent"`
	Caveats             []string `json:"caveats"`
}

func liveJSON(l *diagnose.LiveEvidence) *jsonLive {
	k := l.KPIs
	j := &jsonLive{WindowS: num(k.WindowS), GoVersion: k.GoVersion, GCCycles: k.Cycles, GCCyclesPerSecond: num(k.CyclesPerSecond),
		GCForced: k.Forced, GCCPUFraction: num(k.GCCPU.Fraction), GCCPUExact: k.GCCPU.Exact, GCCPULow: num(k.GCCPU.Low),
		GCCPUHigh: num(k.GCCPU.High), GCCPUFrom: k.GCCPU.From, GCCPUSinceStart: num(k.GCCPU.SinceStart), MarkShare: num(k.GCCPU.MarkShare),
		PauseMaxMS: num(k.Pauses.MaxMS), PauseP50MS: num(k.Pauses.P50MS), PauseP99MS: num(k.Pauses.P99MS), PauseTotalMS: num(k.Pauses.TotalMS),
		PauseCount: k.Pauses.Count, PausePerCycle: k.Pauses.PerCycle, PauseWindow: k.Pauses.Window, PauseFrom: k.Pauses.From,
		AllocBytes: num(k.AllocBytes), AllocBytesPerSecond: num(k.AllocBytesPerSecond), HeapAllocBytes: num(k.HeapAllocBytes),
		HeapGoalBytes: num(k.HeapGoalBytes), LiveHeapBytes: num(k.LiveHeapBytes), LiveHeapEstimated: k.LiveEstimated,
		StackBytes: num(k.StackBytes), GlobalsBytes: num(k.GlobalsBytes), GOMEMLIMITBytes: num(k.MemoryLimitBytes),
		GOMAXPROCS: k.GOMAXPROCS, RSSBytes: num(k.RSSBytes), MaxRSSBytes: num(k.MaxRSSBytes), SchedLatencyP99MS: num(k.SchedLatencyP99MS),
		Goroutines: num(k.Goroutines), Agent: l.Agent, Caveats: k.Caveats, Sources: []string{}}
	for _, s := range k.Sources {
		j.Sources = append(j.Sources, string(s))
	}
	if k.GOGC != 0 {
		g := k.GOGC
		j.GOGC = &g
	}
	if !math.IsNaN(k.MemoryLimitBytes) {
		set := !math.IsInf(k.MemoryLimitBytes, 1)
		j.GOMEMLIMITSet = &set
	}
	if j.Agent == nil {
		j.Agent = []string{}
	}
	if j.Caveats == nil {
		j.Caveats = []string{}
	}
	return j
}
