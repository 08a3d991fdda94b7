package watch

import (
	"encoding/json"
	"math"
	"time"

	"github.com/gcdoctor/gcdoctor/live"
)

// Point is the figures of one interval. A figure no source gives is NaN.
type Point struct {
	// T is the end of the interval; WindowS its length, s.
	T       time.Time
	WindowS float64
	// Cycles are the GC cycles that ended in the interval.
	Cycles          int
	CyclesPerSecond float64
	// GCCPU is the GC's share of the CPU available to the program, 0..1;
	// GCCPUEstimated marks an estimate rather than the runtime's
	// measurement.
	GCCPU          float64
	GCCPUEstimated bool
	// GCCPUSinceStart marks the runtime's average since the program
	// started (GCCPUFraction), given when no source serves the interval's
	// own: MemStats or expvar alone.
	GCCPUSinceStart bool
	// PauseMaxMS and PauseP99MS are the interval's longest and 99th
	// percentile stop-the-world pauses, ms.
	PauseMaxMS, PauseP99MS float64
	// HeapAllocBytes, HeapGoalBytes and LiveHeapBytes are the heap, its
	// goal and what the last cycle marked live; MemoryLimitBytes is
	// GOMEMLIMIT (+Inf when none); RSSBytes the resident set size.
	HeapAllocBytes, HeapGoalBytes, LiveHeapBytes float64
	MemoryLimitBytes, RSSBytes                   float64
	Goroutines                                   float64
	AllocBytesPerSecond                          float64
	// Findings are the IDs of the rules that fire on the recent span.
	Findings []string
}

// pointOf takes the figures of an interval's KPIs.
func pointOf(t time.Time, k *live.KPIs) Point {
	return Point{T: t, WindowS: k.WindowS, Cycles: k.Cycles, CyclesPerSecond: k.CyclesPerSecond,
		GCCPU: k.GCCPU.Fraction, GCCPUEstimated: !k.GCCPU.Exact,
		GCCPUSinceStart: !k.GCCPU.Exact && math.IsNaN(k.GCCPU.Low) && !math.IsNaN(k.GCCPU.Fraction),
		PauseMaxMS:      k.Pauses.MaxMS, PauseP99MS: k.Pauses.P99MS,
		HeapAllocBytes: k.HeapAllocBytes, HeapGoalBytes: k.HeapGoalBytes, LiveHeapBytes: k.LiveHeapBytes,
		MemoryLimitBytes: k.MemoryLimitBytes, RSSBytes: k.RSSBytes, Goroutines: k.Goroutines,
		AllocBytesPerSecond: k.AllocBytesPerSecond}
}

// pointJSON is a Point as --json-lines prints it: one object per line,
// documented in docs/json.md ("watch"). Unknown figures are null.
type pointJSON struct {
	T                   string   `json:"t"`
	WindowS             float64  `json:"window_s"`
	GCCycles            int      `json:"gc_cycles"`
	GCCPUFraction       *float64 `json:"gc_cpu_fraction"`
	GCCPUEstimated      bool     `json:"gc_cpu_estimated"`
	GCCPUSinceStart     bool     `json:"gc_cpu_since_start"`
	PauseMaxMS          *float64 `json:"pause_max_ms"`
	PauseP99MS          *float64 `json:"pause_p99_ms"`
	HeapAllocBytes      *float64 `json:"heap_alloc_bytes"`
	HeapGoalBytes       *float64 `json:"heap_goal_bytes"`
	HeapLiveBytes       *float64 `json:"heap_live_bytes"`
	MemoryLimitBytes    *float64 `json:"memory_limit_bytes"`
	RSSBytes            *float64 `json:"rss_bytes"`
	Goroutines          *float64 `json:"goroutines"`
	AllocBytesPerSecond *float64 `json:"alloc_bytes_per_second"`
	Findings            []string `json:"findings"`
}

// MarshalJSON writes the --json-lines record. No limit is null, as an
// unknown one is: JSON has no infinity.
func (p Point) MarshalJSON() ([]byte, error) {
	f := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		v = math.Round(v*1e6) / 1e6
		return &v
	}
	findings := p.Findings
	if findings == nil {
		findings = []string{}
	}
	return json.Marshal(pointJSON{T: p.T.UTC().Format(time.RFC3339Nano), WindowS: math.Round(p.WindowS*1000) / 1000,
		GCCycles: p.Cycles, GCCPUFraction: f(p.GCCPU), GCCPUEstimated: p.GCCPUEstimated,
		GCCPUSinceStart: p.GCCPUSinceStart, PauseMaxMS: f(p.PauseMaxMS), PauseP99MS: f(p.PauseP99MS),
		HeapAllocBytes: f(p.HeapAllocBytes), HeapGoalBytes: f(p.HeapGoalBytes), HeapLiveBytes: f(p.LiveHeapBytes),
		MemoryLimitBytes: f(p.MemoryLimitBytes), RSSBytes: f(p.RSSBytes), Goroutines: f(p.Goroutines),
		AllocBytesPerSecond: f(p.AllocBytesPerSecond), Findings: findings})
}
