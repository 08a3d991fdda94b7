package fleet

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gcdoctor/gcdoctor/internal/goversion"
)

// answers are the queries' answers by name.
type answers map[string]*answer

func newAnswers(as []*answer) answers {
	set := answers{}
	for i, a := range as {
		if a != nil {
			set[queries[i].name] = a
		}
	}
	return set
}

// get returns a query's value for an instance, NaN when it has none.
func (s answers) get(name string, k key) float64 {
	a := s[name]
	if a == nil {
		return math.NaN()
	}
	v, ok := a.values[k]
	if !ok {
		return math.NaN()
	}
	return v
}

// instances lists the instances that export Go metrics: those any of the
// Go collector's own series answered for (process_* series come from
// programs in other languages too).
func (s answers) instances() []key {
	seen := map[key]bool{}
	var out []key
	for _, name := range []string{"go_version", "gc_cycles_per_second", "heap_goal_bytes", "alloc_bytes_per_second", "gc_cpu_cores"} {
		a := s[name]
		if a == nil {
			continue
		}
		for k := range a.values {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	slices.SortFunc(out, func(a, b key) int {
		return cmp.Or(strings.Compare(a.job, b.job), strings.Compare(a.instance, b.instance))
	})
	return out
}

// noMemoryLimit is what go_gc_gomemlimit_bytes reads with no GOMEMLIMIT:
// math.MaxInt64, as a float.
const noMemoryLimit = float64(math.MaxInt64) * 0.999

// backgroundUtilization is the share of GOMAXPROCS the runtime's
// background mark workers take while the GC marks (gcBackgroundUtilization
// in runtime/mgcpacer.go): dedicated and fractional workers together,
// which /cpu/classes/gc/mark/dedicated counts.
const backgroundUtilization = 0.25

// gcLimiterShare is the most of the CPU the GC takes while it marks, assists
// included, since Go 1.19: the GC CPU limiter of runtime/mgclimit.go caps
// it at 50%.
const gcLimiterShare = 0.5

// instance builds one instance's figures from the answers.
func (s answers) instance(k key, window time.Duration, end time.Time) *Instance {
	in := &Instance{Job: k.job, Instance: k.instance, GCCores: math.NaN(), GCCoresLow: math.NaN(), GCCoresHigh: math.NaN(),
		GCShare: math.NaN(), GCAvailableShare: math.NaN(), LiveR2: math.NaN(), LiveSlope: math.NaN(),
		LiveStart: math.NaN(), LiveEnd: math.NaN(), MarkShare: math.NaN()}
	if a := s["go_version"]; a != nil {
		in.GoVersion = a.labels[k]
	}
	if in.GoVersion == "" {
		in.miss("no go_info: the Go version is unknown")
	}
	g := func(name string) float64 { return s.get(name, k) }
	in.GCPerSecond = g("gc_cycles_per_second")
	in.PauseSecsPerSec = g("gc_pause_seconds_per_second")
	in.PauseMaxS = g("gc_pause_max_seconds")
	in.PauseP99S = g("gc_pause_p99_seconds")
	if !known(in.GCPerSecond) {
		in.miss("no go_gc_duration_seconds: GC cycles and pauses are unknown")
	} else if !known(in.PauseP99S) {
		in.miss("no pause histogram (go_sched_pauses_total_gc_seconds, runtime metrics): the p99 pause is unknown; the longest is from go_gc_duration_seconds")
	}
	in.AllocBytesPerSec = g("alloc_bytes_per_second")
	if !known(in.AllocBytesPerSec) {
		in.miss("no go_memstats_alloc_bytes_total: the allocation rate is unknown")
	}
	in.ProcessCores = g("process_cpu_cores")
	in.RSSMaxBytes = g("rss_max_bytes")
	if !known(in.ProcessCores) || !known(in.RSSMaxBytes) {
		in.miss("no process_cpu_seconds_total or process_resident_memory_bytes (process collector): process CPU or RSS is unknown")
	}
	in.WindowS = window.Seconds()
	if start := g("process_start_seconds"); known(start) && start > 0 {
		// rate() covers the samples within the window: a process younger
		// than it has fewer.
		in.WindowS = math.Min(in.WindowS, math.Max(float64(end.UnixMilli())/1000-start, 0))
	}

	in.settings(g)
	in.Goroutines = g("goroutines")
	in.HeapInuseBytes = g("heap_inuse_bytes")
	in.StacksBytes = g("stacks_bytes")
	in.GlobalsBytes = g("globals_bytes")
	in.GoalBytes = g("heap_goal_bytes")
	in.GoalMaxBytes = g("heap_goal_max_bytes")
	in.GoalMedianBytes = g("heap_goal_median_bytes")

	in.cores(g)
	in.liveTrend(g)
	in.shares()
	if f := g("gc_cpu_fraction"); !known(in.GCCores) && known(f) {
		// Old client_golang versions export MemStats.GCCPUFraction: the
		// GC's share of the CPU available, averaged since the process
		// started; in cores only where GOMAXPROCS is known (else the
		// cores are estimated from the cycles, see estimate).
		in.GCAvailableShare = f
		in.gcCPUFraction = true
		if in.GOMAXPROCS > 0 {
			in.GCCores = f * float64(in.GOMAXPROCS)
			in.GCCoresLow, in.GCCoresHigh = in.GCCores, in.GCCores
			in.GCCoresEstimated = true
			in.GCCoresFrom = "go_memstats_gc_cpu_fraction × GOMAXPROCS, averaged since the process started"
			in.shares()
		}
	}
	return in
}

// settings reads GOGC, GOMEMLIMIT and GOMAXPROCS in force, saying what is missing.
func (in *Instance) settings(g func(string) float64) {
	switch v := g("gogc_percent"); {
	case known(v) && (v < 0 || v > math.MaxInt32):
		// GOGC=off reads as -1, or as the uint64 it wraps to.
		in.GOGC, in.GOGCKnown = -1, true
	case known(v):
		in.GOGC, in.GOGCKnown = int(math.Round(v)), true
	default:
		in.GOGC = 100
		in.miss("no go_gc_gogc_percent (client_golang before v1.20): GOGC taken as 100")
	}
	switch v := g("gomemlimit_bytes"); {
	case !known(v):
		in.miss("no go_gc_gomemlimit_bytes (client_golang before v1.20): GOMEMLIMIT taken as unset")
	case v < noMemoryLimit && v > 0:
		in.MemoryLimit = int64(v)
	}
	if v := g("gomaxprocs"); known(v) && v >= 1 {
		in.GOMAXPROCS = int(math.Round(v))
	} else {
		in.miss("no go_sched_gomaxprocs_threads (client_golang before v1.20): GOMAXPROCS is unknown, so is the GC's share of the CPU available to the program")
	}
}

// cores reads the GC CPU from the runtime's CPU classes, and the share of the time spent marking.
func (in *Instance) cores(g func(string) float64) {
	in.GCCores = g("gc_cpu_cores")
	if known(in.GCCores) {
		in.GCCores = math.Max(in.GCCores, 0)
		in.GCCoresFrom = "the runtime's CPU classes (go_cpu_classes_gc_total less mark idle)"
		if known(in.ProcessCores) && in.GCCores > in.ProcessCores {
			// The classes count a P's wall time in GC work, an
			// overestimate when the host gives the process less CPU than
			// its Ps: the GC cannot use more than the process did.
			in.GCCores = in.ProcessCores
			in.GCCoresFrom += ", capped at the process's CPU"
		}
		in.GCCoresLow, in.GCCoresHigh = in.GCCores, in.GCCores
		if d := g("gc_mark_dedicated_cores"); known(d) && in.GOMAXPROCS > 0 {
			// Two lower bounds of the time spent marking, as a share of
			// the time the process ran (GOMAXPROCS cores, or fewer when
			// the host gave it less): the background workers take 25% of
			// those cores while the GC marks, and no more than all of
			// them can mark at once (assists included, pauses excluded).
			// On a contended host the process runs less than its wall
			// time, and so does its marking.
			p := float64(in.GOMAXPROCS)
			ran := p
			if known(in.ProcessCores) && in.ProcessCores > 0 {
				ran = math.Min(p, in.ProcessCores)
			}
			// Since Go 1.19 the GC CPU limiter keeps the GC to half the
			// CPU while it marks, so marking lasted at least twice as long
			// as its CPU; before, it could take all of it.
			most := 1.0
			if goversion.Minor(in.GoVersion) >= 19 {
				most = gcLimiterShare
			}
			mark := in.GCCores - zeroNaN(in.PauseSecsPerSec)*p
			in.MarkShare = math.Min(math.Max(d/(backgroundUtilization*ran), mark/(most*ran)), 1)
		}
	}

}

// liveTrend reads the live heap and its trend over the window; without the runtime metrics's live heap, both are estimated from the goal.
func (in *Instance) liveTrend(g func(string) float64) {
	live := g("heap_live_bytes")
	slope, tend, sd, n := g("trend_slope_bytes_per_second"), g("trend_end_bytes"), g("trend_stddev_bytes"), g("trend_samples")
	scale := 1.0
	if known(live) {
		in.LiveBytes = live
		in.LiveToGoal = g("live_to_goal_median")
	} else {
		in.LiveEstimated = true
		in.LiveToGoal = math.NaN()
		in.LiveBytes, scale = liveFromGoal(in)
		in.miss("no go_gc_heap_live_bytes (runtime metrics): the live heap is estimated from the heap goal and GOGC, and memlimit-death-spiral is not judged")
	}
	if known(slope) && known(tend) && known(n) && n >= 3 && in.WindowS > 0 {
		in.LiveSlope = slope * scale
		in.LiveEnd = tend * scale
		in.LiveStart = in.LiveEnd - in.LiveSlope*in.WindowS
		// R² of a least-squares line is slope² × var(t) / var(y); for n
		// samples spread evenly over T, var(t) = T² (n+1) / (12 (n−1)).
		if known(sd) && sd > 0 {
			vt := in.WindowS * in.WindowS * (n + 1) / (12 * (n - 1))
			in.LiveR2 = math.Min(slope*slope*vt/(sd*sd), 1)
		} else if known(sd) {
			in.LiveR2 = 0
		}
	}
}

// shares sets the GC's shares of the process's and the available CPU.
func (in *Instance) shares() {
	if !known(in.GCCores) {
		return
	}
	if in.GOMAXPROCS > 0 {
		in.GCAvailableShare = in.GCCores / float64(in.GOMAXPROCS)
	}
	if in.ProcessCores > 0 {
		in.GCShare = math.Min(in.GCCores/in.ProcessCores, 1)
	}
}

// ScanBytes is what a cycle scans: the live heap, stacks and globals;
// NaN when the live heap is unknown.
func (in *Instance) ScanBytes() float64 {
	return in.LiveBytes + zeroNaN(in.StacksBytes) + zeroNaN(in.GlobalsBytes)
}

// liveFromGoal estimates the live heap from the heap goal the GOGC sets
// (pacer.HeapGoal from Go 1.18: goal = live + (live + stacks + globals) ×
// GOGC/100), and returns the factor that turns the goal's trend into the
// live heap's. With GOGC=off the goal says nothing of the live heap.
func liveFromGoal(in *Instance) (live, scale float64) {
	if !known(in.GoalBytes) || in.GOGC < 0 {
		return math.NaN(), math.NaN()
	}
	f := float64(in.GOGC) / 100
	roots := zeroNaN(in.StacksBytes) + zeroNaN(in.GlobalsBytes)
	live = (in.GoalBytes - roots*f) / (1 + f)
	if min := 4 << 20 * f; in.GoalBytes <= min*1.001 {
		// At the minimum heap the goal does not follow the live heap,
		// which is at most the goal.
		live = math.Min(live, in.GoalBytes)
	}
	return math.Max(live, 0), 1 / (1 + f)
}

// miss records a missing series and what it cost.
func (in *Instance) miss(what string) {
	in.Missing = append(in.Missing, what)
}
