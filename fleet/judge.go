package fleet

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/internal/figure"
)

// The single-process rules' thresholds (diagnose/rule_*.go), applied to
// the same figures read from Prometheus. TestThresholdsMatchRules holds
// each to its rule's documented Detection text.
const (
	// gc-cpu-high: share of the CPU available (wall time × GOMAXPROCS),
	// with at least 3 cycles.
	gcCPUWarn, gcCPUCritical = 0.10, 0.25
	gcCPUMinCycles           = 3
	// memlimit-death-spiral: at least 5 cycles, the live heap ≥ 95% of
	// the goal in half of them or more, marking ≥ 50% of the wall time.
	spiralMinCycles, spiralAtGoal, spiralMarkShare = 5, 0.95, 0.50
	// live-heap-growth: at least 6 cycles over 10 s, a fit of R² ≥ 0.7
	// that rises, ending ≥ 1.5× and ≥ 8 MB above its start.
	growthMinCycles, growthMinSecs, growthR2, growthFactor = 6, 10, 0.7, 1.5
	growthMinBytes                                         = 8 << 20
	// rss-over-heap: RSS ≥ 1.5× the largest heap the goal allows (plus
	// stacks and globals) and at least 64 MB more.
	rssFactor, rssMinBytes = 1.5, 64 << 20
	// stw-long: the longest pause ≥ 10 ms (critical at ≥ 100 ms), or the
	// 99th percentile ≥ 5 ms.
	stwMaxS, stwCriticalS, stwP99S = 0.010, 0.100, 0.005
	// alloc-churn: at least 10 paced cycles and 5 a second, 64 MB/s, a
	// turnover (allocation ÷ live heap) of 10 a second, most cycles above
	// the minimum heap; a warning when GC CPU ≥ 5%.
	churnMinCycles, churnPerSecond, churnTurnover = 10, 5, 10
	churnMinBytesPerSec                           = 64 << 20
	churnWarnShare                                = 0.05
	// gc-min-heap: at least 10 paced cycles and 5 a second, half or more
	// with the goal at the minimum heap (4 MB × GOGC/100); a warning when
	// GC CPU ≥ 5%.
	minHeapMinCycles, minHeapPerSecond = 10, 5
	minHeapBytes                       = 4 << 20
	minHeapWarnShare                   = 0.05
)

// judged is what the rules need to know about where the figures came
// from: the selector and window of the queries, to write each figure's
// PromQL for one instance.
type judged struct {
	in     *Instance
	sel    string
	window time.Duration
	end    time.Time
}

// src returns the PromQL of a query narrowed to the instance, with the
// time it was evaluated at: the figure's source.
func (j *judged) src(name string) string {
	for i := range queries {
		if queries[i].name == name {
			q := queries[i].text(instanceSelector(j.sel, j.in.Job, j.in.Instance), j.window, subqueryStep(j.window))
			return q + " at " + j.end.UTC().Format(time.RFC3339)
		}
	}
	panic("fleet: no query " + name)
}

// who names the instance in a message.
func (j *judged) who() string { return j.in.Job + " " + j.in.Instance }

// over says the window in a message: "over the last 1h".
func (j *judged) over() string {
	if j.in.WindowS < j.window.Seconds()*0.99 {
		return "over the " + promDuration(time.Duration(j.in.WindowS)*time.Second) + " it has run"
	}
	return "over the last " + promDuration(j.window)
}

// cycles is the number of cycles in the window.
func (j *judged) cycles() float64 { return zeroNaN(j.in.GCPerSecond) * j.in.WindowS }

// judge applies the rules to an instance; the findings are ordered as
// the single-process diagnosis orders them, most severe first.
func judge(in *Instance, sel string, window time.Duration, end time.Time) []diagnose.Finding {
	j := &judged{in: in, sel: sel, window: window, end: end}
	var out []diagnose.Finding
	for _, rule := range []func(*judged) *diagnose.Finding{
		(*judged).deathSpiral, (*judged).gcCPU, (*judged).rssOverHeap, (*judged).stwLong,
		(*judged).allocChurn, (*judged).minHeap, (*judged).liveGrowth,
	} {
		if f := rule(j); f != nil {
			r, ok := diagnose.Lookup(f.ID)
			if !ok {
				panic("fleet: no rule " + f.ID)
			}
			f.Title = r.Title
			out = append(out, *f)
		}
	}
	slices.SortStableFunc(out, func(a, b diagnose.Finding) int { return cmp.Compare(b.Severity, a.Severity) })
	return out
}

func pct(v float64) string { return figure.Num(v * 100) }
func mib(v float64) string { return figure.Num(v/(1<<20)) + " MiB" }

func (j *judged) gcCPU() *diagnose.Finding {
	in := j.in
	share := in.GCAvailableShare
	if !known(share) || share < gcCPUWarn || j.cycles() < gcCPUMinCycles {
		return nil
	}
	f := &diagnose.Finding{ID: "gc-cpu-high", Severity: diagnose.Warning}
	if share >= gcCPUCritical {
		f.Severity = diagnose.Critical
	}
	procs := "GOMAXPROCS unknown"
	if in.GOMAXPROCS > 0 {
		procs = fmt.Sprintf("%d P", in.GOMAXPROCS)
	}
	f.Message = fmt.Sprintf("GC used %s%% of the CPU available to %s (%s), %s cores, %s.", pct(share), j.who(), procs, figure.Num(in.GCCores), j.over())
	if in.gcCPUFraction {
		f.Message += " The share is the runtime's own (go_memstats_gc_cpu_fraction), averaged since the process started."
	}
	if known(in.GCShare) {
		f.Message += fmt.Sprintf(" That is %s%% of the CPU the process used.", pct(in.GCShare))
	}
	f.Evidence = []diagnose.Evidence{
		{Label: "GC CPU", Value: in.GCCores, Unit: "cores", Source: j.src("gc_cpu_cores")},
	}
	if in.GOMAXPROCS > 0 {
		f.Evidence = append(f.Evidence, diagnose.Evidence{Label: "GOMAXPROCS", Value: float64(in.GOMAXPROCS), Unit: "count", Source: j.src("gomaxprocs")})
	}
	if in.gcCPUFraction {
		f.Evidence = append(f.Evidence, diagnose.Evidence{Label: "GC share of the available CPU", Value: share * 100, Unit: "%", Source: j.src("gc_cpu_fraction")})
	}
	if in.GCCoresEstimated {
		f.Evidence[0].Source = "estimated from " + j.src("gc_cycles_per_second")
		f.Caveats = append(f.Caveats, fmt.Sprintf("GC CPU is an estimate (%s–%s cores): %s", figure.Num(in.GCCoresLow), figure.Num(in.GCCoresHigh), in.GCCoresFrom))
	}
	if known(in.ProcessCores) {
		f.Evidence = append(f.Evidence, diagnose.Evidence{Label: "process CPU", Value: in.ProcessCores, Unit: "cores", Source: j.src("process_cpu_cores")})
	}
	if known(in.AllocBytesPerSec) {
		f.Evidence = append(f.Evidence, diagnose.Evidence{Label: "allocation rate", Value: in.AllocBytesPerSec / (1 << 20), Unit: "MB/s", Source: j.src("alloc_bytes_per_second")})
	}
	f.Evidence = append(f.Evidence, diagnose.Evidence{Label: "GC cycles", Value: in.GCPerSecond, Unit: "/s", Source: j.src("gc_cycles_per_second")})
	if known(in.LiveBytes) && in.GCPerSecond > 0 && known(in.AllocBytesPerSec) {
		f.Message += fmt.Sprintf(" It allocates %s MB/s, which starts a cycle every %s s, and each cycle costs %s ms of CPU.",
			figure.Num(in.AllocBytesPerSec/(1<<20)), figure.Num(1/in.GCPerSecond), figure.Num(in.GCCores/in.GCPerSecond*1000))
	}
	switch {
	case known(in.LiveToGoal) && in.LiveToGoal >= spiralAtGoal:
		f.Remedy = "The live heap fills the heap goal, so the GC runs back to back (see memlimit-death-spiral): raising GOGC changes nothing while a memory limit caps the goal. Make room between the live heap and the limit, or shrink the live heap."
	case in.GOGC >= 0 && known(in.LiveBytes) && in.LiveBytes > 0:
		g2 := max(in.GOGC*2, 200)
		f.Remedy = fmt.Sprintf("Allocate less: drill down with gcdoctor doctor on this instance, or take a heap profile (alloc_space) and cut its heaviest sites. Or trade memory for CPU: GOGC=%d would roughly halve the GC CPU while the heap goal grows from about %s to %s (live %s × (1 + GOGC/100)); with a memory budget, set GOMEMLIMIT to it and raise GOGC under it.",
			g2, mib(in.LiveBytes*(1+float64(in.GOGC)/100)), mib(in.LiveBytes*(1+float64(g2)/100)), mib(in.LiveBytes))
	default:
		f.Remedy = "Allocate less (a heap profile, alloc_space) or raise GOGC."
	}
	f.Verify = fmt.Sprintf("After the change, run gcdoctor fleet again over a window of the same load: GC CPU should fall well below %s%% of the available CPU.", pct(share))
	return f
}

func (j *judged) deathSpiral() *diagnose.Finding {
	in := j.in
	if !known(in.LiveToGoal) || !known(in.MarkShare) || j.cycles() < spiralMinCycles ||
		in.LiveToGoal < spiralAtGoal || in.MarkShare < spiralMarkShare {
		return nil
	}
	f := &diagnose.Finding{ID: "memlimit-death-spiral", Severity: diagnose.Critical}
	f.Message = fmt.Sprintf("For at least half of the window the live heap of %s was %s%% or more of the heap goal (median %s%%; %s live against a %s goal), and the GC marked %s%% of the time, %s: the GC is effectively always on.",
		j.who(), pct(spiralAtGoal), pct(in.LiveToGoal), mib(in.LiveBytes), mib(in.GoalBytes), pct(in.MarkShare), j.over())
	if in.MemoryLimit > 0 {
		f.Message += fmt.Sprintf(" GOMEMLIMIT is %s.", mib(float64(in.MemoryLimit)))
	}
	if known(in.GCAvailableShare) {
		f.Message += fmt.Sprintf(" GC takes %s%% of the CPU.", pct(in.GCAvailableShare))
	}
	f.Evidence = []diagnose.Evidence{
		{Label: "median live heap ÷ goal", Value: in.LiveToGoal * 100, Unit: "%", Source: j.src("live_to_goal_median")},
		{Label: "time marking (of the time it ran)", Value: in.MarkShare * 100, Unit: "%", Source: j.src("gc_mark_dedicated_cores") + " ÷ (25% × GOMAXPROCS)"},
		{Label: "live heap", Value: in.LiveBytes / (1 << 20), Unit: "MB", Source: j.src("heap_live_bytes")},
		{Label: "heap goal", Value: in.GoalBytes / (1 << 20), Unit: "MB", Source: j.src("heap_goal_bytes")},
	}
	if in.MemoryLimit > 0 {
		f.Evidence = append(f.Evidence, diagnose.Evidence{Label: "GOMEMLIMIT", Value: float64(in.MemoryLimit) / (1 << 20), Unit: "MB", Source: j.src("gomemlimit_bytes")})
	}
	f.Caveats = []string{"the share of cycles at the goal is read from samples of the metrics, one a scrape, rather than from each cycle"}
	headroom := (in.LiveBytes + zeroNaN(in.StacksBytes) + zeroNaN(in.GlobalsBytes)) * 1.25
	f.Remedy = fmt.Sprintf("The goal is capped by GOMEMLIMIT right at the live heap. Raise GOMEMLIMIT to at least %s (live heap, stacks and globals plus 25%%), keeping it 5–10%% under any container limit, or reduce the live heap. Avoid GOGC=off with a limit this close to the live heap: a finite GOGC bounds the GC when the limit is far.", mib(headroom))
	f.Verify = "Run gcdoctor fleet again after the change: marking should take well under 50% of the time and the live heap should stay clearly below the goal."
	return f
}

func (j *judged) liveGrowth() *diagnose.Finding {
	in := j.in
	if !known(in.LiveR2) || !known(in.LiveSlope) || j.cycles() < growthMinCycles || in.WindowS < growthMinSecs {
		return nil
	}
	if in.LiveSlope <= 0 || in.LiveR2 < growthR2 {
		return nil
	}
	start, end := math.Max(in.LiveStart, 0), in.LiveEnd
	if end-start < growthMinBytes || end < growthFactor*math.Max(start, 1<<20) {
		return nil
	}
	perMin := in.LiveSlope * 60 / (1 << 20)
	f := &diagnose.Finding{ID: "live-heap-growth", Severity: diagnose.Warning}
	f.Message = fmt.Sprintf("The live heap of %s grew from %s to %s %s (%s MB/min, R² %s).",
		j.who(), mib(start), mib(end), j.over(), figure.Num(perMin), figure.Num(in.LiveR2))
	if in.WindowS >= 300 {
		f.Message += fmt.Sprintf(" At this rate it would hold %s after another hour, and the heap goal more.", mib(end+in.LiveSlope*3600))
	} else {
		f.Message += " Observe it longer to tell a leak from warm-up."
	}
	trend := "trend_slope_bytes_per_second"
	f.Evidence = []diagnose.Evidence{
		{Label: "live heap at start (fit)", Value: start / (1 << 20), Unit: "MB", Source: j.src("trend_end_bytes") + " − slope × window"},
		{Label: "live heap at end (fit)", Value: end / (1 << 20), Unit: "MB", Source: j.src("trend_end_bytes")},
		{Label: "trend", Value: perMin, Unit: "MB/min", Source: j.src(trend)},
		{Label: "fit R²", Value: in.LiveR2, Unit: "", Source: j.src("trend_stddev_bytes") + " and " + j.src("trend_samples")},
	}
	f.Caveats = []string{fmt.Sprintf("observed for %s s only: a program that is warming up grows too", figure.Num(in.WindowS))}
	if in.LiveEstimated {
		f.Caveats = append(f.Caveats, "the live heap's trend is read from the heap goal's, which follows it under a fixed GOGC")
	}
	f.Remedy = "Compare two heap profiles taken minutes apart (inuse_space, -diff_base) to see what accumulates; bound caches, delete map entries, stop tickers, make goroutines exit."
	f.Verify = "Observe for longer: the live heap should level off (trend near 0 MB/min)."
	return f
}

func (j *judged) rssOverHeap() *diagnose.Finding {
	in := j.in
	if !known(in.RSSMaxBytes) || !known(in.GoalMaxBytes) {
		return nil
	}
	heap := in.GoalMaxBytes + zeroNaN(in.StacksBytes) + zeroNaN(in.GlobalsBytes)
	if in.RSSMaxBytes < rssFactor*heap || in.RSSMaxBytes-heap < rssMinBytes {
		return nil
	}
	f := &diagnose.Finding{ID: "rss-over-heap", Severity: diagnose.Warning}
	f.Message = fmt.Sprintf("%s reached %s of RSS %s while its Go heap could not exceed %s (the largest heap goal, stacks and globals): %s is held outside the heap the GC manages.",
		j.who(), mib(in.RSSMaxBytes), j.over(), mib(heap), mib(in.RSSMaxBytes-heap))
	f.Evidence = []diagnose.Evidence{
		{Label: "peak RSS", Value: in.RSSMaxBytes / (1 << 20), Unit: "MB", Source: j.src("rss_max_bytes")},
		{Label: "largest heap goal, stacks, globals", Value: heap / (1 << 20), Unit: "MB", Source: j.src("heap_goal_max_bytes")},
	}
	f.Remedy = "Freed heap pages the runtime has not returned to the OS, goroutine stacks, cgo or mmap'd memory: on Go 1.12–1.15 set GODEBUG=madvdontneed=1; on Go ≥ 1.19 GOMEMLIMIT makes the scavenger return memory as the limit nears. If the gap stays, look at cgo allocations, mmap'd files and goroutine stacks."
	f.Verify = "Run gcdoctor fleet again: peak RSS should come close to the heap goal."
	return f
}

func (j *judged) stwLong() *diagnose.Finding {
	in := j.in
	long := known(in.PauseMaxS) && in.PauseMaxS >= stwMaxS
	tail := known(in.PauseP99S) && in.PauseP99S >= stwP99S
	if !long && !tail {
		return nil
	}
	f := &diagnose.Finding{ID: "stw-long", Severity: diagnose.Warning}
	if known(in.PauseMaxS) && in.PauseMaxS >= stwCriticalS {
		f.Severity = diagnose.Critical
	}
	f.Message = fmt.Sprintf("%s stopped the world for up to %s ms (p99 %s ms) %s.", j.who(), figure.Num(in.PauseMaxS*1000), figure.Num(in.PauseP99S*1000), j.over())
	f.Evidence = []diagnose.Evidence{
		{Label: "longest pause", Value: in.PauseMaxS * 1000, Unit: "ms", Source: j.src("gc_pause_max_seconds")},
	}
	if known(in.PauseP99S) {
		f.Evidence = append(f.Evidence, diagnose.Evidence{Label: "p99 pause", Value: in.PauseP99S * 1000, Unit: "ms", Source: j.src("gc_pause_p99_seconds")})
		f.Caveats = append(f.Caveats, "the p99 is interpolated within the runtime's pause histogram buckets, which are an order of magnitude wide")
	}
	f.Caveats = append(f.Caveats, "go_gc_duration_seconds keeps only the most recent pauses at each scrape, so the longest is the longest those samples saw")
	f.Remedy = "Pauses of 10 ms and more come from a machine whose CPUs are contended (a stopped world waits for a CPU like any thread), CPU throttling by a container limit below GOMAXPROCS, or goroutines that do not reach a preemption point. Drill down with gcdoctor doctor on this instance: its execution trace says what held each stop."
	f.Verify = "Run gcdoctor fleet again: the longest pause should stay under 10 ms."
	return f
}

func (j *judged) allocChurn() *diagnose.Finding {
	in := j.in
	if !known(in.AllocBytesPerSec) || !known(in.LiveBytes) || !known(in.GCPerSecond) {
		return nil
	}
	if j.cycles() < churnMinCycles || in.GCPerSecond < churnPerSecond || in.AllocBytesPerSec < churnMinBytesPerSec || j.atMinHeap() {
		return nil
	}
	turnover := in.AllocBytesPerSec / math.Max(in.LiveBytes, 1<<20)
	if turnover < churnTurnover {
		return nil
	}
	f := &diagnose.Finding{ID: "alloc-churn", Severity: diagnose.Info}
	if known(in.GCAvailableShare) && in.GCAvailableShare >= churnWarnShare {
		f.Severity = diagnose.Warning
	}
	f.Message = fmt.Sprintf("%s allocates %s MB/s while its live heap averages %s: the heap turns over %s times a second, so the GC runs %s times a second. What it allocates lives about %s ms on average: short-lived garbage drives the GC.",
		j.who(), figure.Num(in.AllocBytesPerSec/(1<<20)), mib(in.LiveBytes), figure.Num(turnover), figure.Num(in.GCPerSecond), figure.Num(1000/turnover))
	f.Evidence = []diagnose.Evidence{
		{Label: "allocation rate", Value: in.AllocBytesPerSec / (1 << 20), Unit: "MB/s", Source: j.src("alloc_bytes_per_second")},
		{Label: "mean live heap", Value: in.LiveBytes / (1 << 20), Unit: "MB", Source: j.src("heap_live_bytes")},
		{Label: "heap turnover", Value: turnover, Unit: "/s", Source: "allocation rate ÷ mean live heap"},
		{Label: "GC cycles", Value: in.GCPerSecond, Unit: "/s", Source: j.src("gc_cycles_per_second")},
	}
	if in.LiveEstimated {
		f.Evidence[1].Source = "estimated from " + j.src("heap_goal_bytes")
	}
	f.Remedy = "Reuse instead of reallocating: find the sites in an allocation profile (gcdoctor doctor on this instance, or go tool pprof -sample_index=alloc_space), then reuse buffers (sync.Pool, a buffer kept per goroutine), preallocate slices and maps, and stream instead of building whole values."
	f.Verify = fmt.Sprintf("Run gcdoctor fleet again under the same load: the allocation rate (now %s MB/s) and GC cycles per second (now %s) should fall together.", figure.Num(in.AllocBytesPerSec/(1<<20)), figure.Num(in.GCPerSecond))
	return f
}

// atMinHeap reports whether the heap goal sat at the minimum heap for at
// least half of the window: its median is the minimum, which no goal is
// below.
func (j *judged) atMinHeap() bool {
	in := j.in
	med := in.GoalMedianBytes
	return in.GOGC > 0 && known(med) && med <= minHeapBytes*float64(in.GOGC)/100*1.001
}

func (j *judged) minHeap() *diagnose.Finding {
	in := j.in
	if !known(in.GCPerSecond) || j.cycles() < minHeapMinCycles || in.GCPerSecond < minHeapPerSecond || !j.atMinHeap() {
		return nil
	}
	f := &diagnose.Finding{ID: "gc-min-heap", Severity: diagnose.Info}
	if known(in.GCAvailableShare) && in.GCAvailableShare >= minHeapWarnShare {
		f.Severity = diagnose.Warning
	}
	floor := minHeapBytes * float64(in.GOGC) / 100
	f.Message = fmt.Sprintf("For at least half of the window %s ran with a heap goal at the minimum (%s at GOGC=%d): the live heap (%s) is too small to pace the GC, so it runs %s times a second.",
		j.who(), mib(floor), in.GOGC, mib(in.LiveBytes), figure.Num(in.GCPerSecond))
	f.Evidence = []diagnose.Evidence{
		{Label: "median heap goal", Value: in.GoalMedianBytes / (1 << 20), Unit: "MB", Source: j.src("heap_goal_median_bytes")},
		{Label: "GC cycles", Value: in.GCPerSecond, Unit: "/s", Source: j.src("gc_cycles_per_second")},
	}
	g := max(in.GOGC*4, 400)
	f.Remedy = fmt.Sprintf("Raise GOGC (GOGC=%d gives a %s minimum and about %d× fewer cycles), or set GOMEMLIMIT to the memory the instance may use with a high GOGC; do not use a heap ballast.", g, mib(minHeapBytes*float64(g)/100), g/max(in.GOGC, 1))
	f.Verify = fmt.Sprintf("Run gcdoctor fleet again: GC cycles per second should fall from %s to about %s.", figure.Num(in.GCPerSecond), figure.Num(in.GCPerSecond*float64(in.GOGC)/float64(g)))
	return f
}
