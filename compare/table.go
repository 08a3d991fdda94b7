package compare

import (
	"math"

	"github.com/gcdoctor/gcdoctor/pacer"
)

// Table compares several columns (the two sides of a diff, or the settings
// of a sweep) over rows, one per benchmark and metric. The first column is
// the baseline every other column is compared with.
type Table struct {
	// Title says what was compared, in one line.
	Title string
	// Config holds context lines, such as "pkg: encoding/json" or
	// "cpu: …" from benchmark files, shown before the rows.
	Config []string
	// Columns are the column labels: "before" and "after", or settings
	// such as "GOGC=50".
	Columns []string
	Rows    []*Row
	// Caveats are caveats on the whole table, as sentences.
	Caveats []string

	// Kind is what made the table: "diff", "sweep" or "bench".
	Kind string
	// Command is the program or benchmark command a sweep or bench ran.
	Command []string
	// Settings are the GOGC and GOMEMLIMIT of each column of a sweep or
	// bench; nil for a diff.
	Settings []pacer.Setting
	// Model is the pacer model whose predictions the cells carry, fitted
	// from a run of column ModelColumn; nil when there is none. ModelErr
	// says why a model could not be fitted.
	Model       *pacer.Model
	ModelColumn int
	ModelErr    string
}

// Row is one metric of one benchmark (or of the whole program) in every
// column.
type Row struct {
	// Benchmark is the benchmark's name without the "Benchmark" prefix,
	// as benchstat prints it; "" for figures of a whole program run.
	Benchmark string
	Metric    Metric
	Cells     []Cell // one per Table column
}

// Cell is one sample in a row and what is known about it.
type Cell struct {
	Sample  Sample
	Summary Summary
	// Delta compares the sample with the baseline's (Cells[0]); nil for the
	// baseline itself and when either sample is empty.
	Delta *Delta
	// Predicted is the pacer model's prediction for this column's setting,
	// in the metric's unit; nil when there is none.
	Predicted *pacer.Range
}

// NewRow summarises one sample per column and compares each with the
// first.
func NewRow(benchmark string, m Metric, samples []Sample) *Row {
	r := &Row{Benchmark: benchmark, Metric: m, Cells: make([]Cell, len(samples))}
	for i, s := range samples {
		c := &r.Cells[i]
		c.Sample = s
		c.Summary = s.Summarize()
		if i > 0 && len(s) > 0 && len(samples[0]) > 0 {
			d := s.Compare(samples[0], m.Better)
			c.Delta = &d
		}
	}
	return r
}

// Find returns the row of a benchmark ("" for program figures) and metric
// name, or nil.
func (t *Table) Find(benchmark, metric string) *Row {
	for _, r := range t.Rows {
		if r.Benchmark == benchmark && r.Metric.Name == metric {
			return r
		}
	}
	return nil
}

// Figures of a program run, as rows of a Table.
var (
	MetricWall     = Metric{Name: "wall time", Unit: "sec", Better: -1}
	MetricCPU      = Metric{Name: "CPU time", Unit: "sec", Better: -1} // user + system
	MetricPeakRSS  = Metric{Name: "peak RSS", Unit: "B", Better: -1}
	MetricGCCount  = Metric{Name: "GC count", Unit: "cycles", Better: -1}
	MetricGCCPU    = Metric{Name: "GC CPU", Unit: "%", Better: -1}
	MetricP99Pause = Metric{Name: "p99 pause", Unit: "ms", Better: -1}
	MetricPeakHeap = Metric{Name: "peak heap", Unit: "MiB", Better: -1}
)

// RunMetrics lists the figures of a Run in the order reports show them.
var RunMetrics = []Metric{MetricWall, MetricCPU, MetricPeakRSS, MetricGCCount, MetricGCCPU, MetricP99Pause, MetricPeakHeap}

// Run holds the figures of one run of a program. A figure that is not known
// (no bundle to give the wall time, a single GC cycle for the GC CPU) is
// NaN.
type Run struct {
	WallS        float64 // wall-clock run time, s
	CPUS         float64 // user + system CPU time of the program and its children, s
	PeakRSS      float64 // peak resident set size, bytes
	GCCount      float64 // GC cycles of the program's process
	GCCPUPercent float64 // GC's share of the available CPU, % (pacer.GCCPUFraction)
	P99PauseMS   float64 // 99th percentile stop-the-world pause, ms
	PeakHeapMiB  float64 // largest heap at the end of a cycle, MiB
}

// Value returns the run's figure for one of RunMetrics; NaN for any other
// metric.
func (r Run) Value(m Metric) float64 {
	switch m.Name {
	case MetricWall.Name:
		return r.WallS
	case MetricCPU.Name:
		return r.CPUS
	case MetricPeakRSS.Name:
		return r.PeakRSS
	case MetricGCCount.Name:
		return r.GCCount
	case MetricGCCPU.Name:
		return r.GCCPUPercent
	case MetricP99Pause.Name:
		return r.P99PauseMS
	case MetricPeakHeap.Name:
		return r.PeakHeapMiB
	}
	return math.NaN()
}

// unknownRun is a Run with every figure unknown.
func unknownRun() Run {
	nan := math.NaN()
	return Run{nan, nan, nan, nan, nan, nan, nan}
}

// runSample collects one metric over runs, leaving out unknown values.
func runSample(runs []Run, m Metric) Sample {
	var s Sample
	for _, r := range runs {
		if v := r.Value(m); !math.IsNaN(v) && !math.IsInf(v, 0) {
			s = append(s, v)
		}
	}
	return s
}

// runRows adds a row per run metric known in at least one column, for
// the given benchmark ("" for whole programs).
func (t *Table) addRunRows(benchmark string, cols [][]Run) {
	for _, m := range RunMetrics {
		samples := make([]Sample, len(cols))
		known := false
		for i, runs := range cols {
			samples[i] = runSample(runs, m)
			known = known || len(samples[i]) > 0
		}
		if known {
			t.Rows = append(t.Rows, NewRow(benchmark, m, samples))
		}
	}
}
