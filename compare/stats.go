// Package compare says whether a change made a Go program faster, smaller
// or cheaper to collect, with the statistics benchstat uses.
//
// The samples come from benchmark result files (the format of `go test
// -bench`, read with golang.org/x/perf/benchfmt), from gctrace logs and
// evidence bundles (each one run of a program, so several of them make a
// sample of per-run GC figures), or from the runs of a program or of a
// package's benchmarks repeated under several GOGC and GOMEMLIMIT settings
// (SweepRuns, BenchRuns). compare only reads what was gathered: running
// programs is package collect's work (collect.Sweep, collect.Bench).
//
// Every sample is summarised by its median and a confidence interval for it,
// and compared with the baseline's by the Mann-Whitney U test
// (golang.org/x/perf/benchmath.AssumeNothing): benchmark timings are seldom
// normally distributed, and a test that assumes nothing about the
// distribution does not invent significance. A difference whose p-value is
// not below Alpha is reported as "~": not distinguishable from noise.
package compare

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Alpha is the significance level: a comparison whose p-value is at least
// Alpha is reported as no difference ("~").
const Alpha = 0.05

// Confidence is the level of the confidence interval around each median.
const Confidence = 0.95

// Metric is something measured, in a unit.
type Metric struct {
	// Name identifies the metric, such as "sec/op" or "GC count".
	Name string
	// Unit is the unit of the values, tidied as benchfmt does: "sec/op",
	// "B/op", "allocs/op", "sec", "B", or one of the plain units "%",
	// "ms", "MiB" and "cycles", which are printed without a scale prefix.
	Unit string
	// Better is -1 when lower values are better, +1 when higher ones are,
	// 0 when neither.
	Better int
}

// Sample holds repeated measurements of one metric under one setting, in
// the order they were taken.
type Sample []float64

// Summary describes a sample by its median and a confidence interval for
// the median.
type Summary struct {
	N      int
	Median float64
	// Lo and Hi bound the confidence interval of the median at level
	// Confidence; they are infinite when the sample is too small to give
	// one (see Warnings).
	Lo, Hi     float64
	Confidence float64 // the interval's actual level, at least Confidence
	// Caveats are caveats, such as "need >= 6 samples for confidence
	// interval at level 0.95", meant as footnotes.
	Caveats []string
}

// Delta is the comparison of a sample with the baseline's.
type Delta struct {
	// Percent is the change of the median from the baseline's, in percent;
	// NaN when the baseline's median is zero.
	Percent float64
	// P is the p-value of the Mann-Whitney U test that the two samples
	// come from the same distribution.
	P      float64
	N1, N2 int // sizes of the baseline's and this sample
	// Significant is P < Alpha: the samples differ beyond noise. When it
	// is false the change is shown as "~".
	Significant bool
	// Better reports whether a significant change is an improvement given
	// the metric's direction; false when not significant or the metric has
	// none.
	Better bool
	// Caveats are caveats, such as "need >= 4 samples to detect a
	// difference at alpha level 0.05" or "all samples are equal".
	Caveats []string
}

var thresholds = &benchmath.Thresholds{CompareAlpha: Alpha}

func (s Sample) bench() *benchmath.Sample {
	// NewSample sorts its argument in place; the caller's order (the order
	// runs were taken in) is kept for reports.
	return benchmath.NewSample(slices.Clone([]float64(s)), thresholds)
}

// Summarize returns the median of s with its confidence interval. An empty
// sample gives NaN figures.
func (s Sample) Summarize() Summary {
	if len(s) == 0 {
		nan := math.NaN()
		return Summary{Median: nan, Lo: nan, Hi: nan}
	}
	bs := s.bench()
	sum := benchmath.AssumeNothing.Summary(bs, Confidence)
	return Summary{N: len(s), Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi,
		Confidence: sum.Confidence, Caveats: errorStrings(sum.Warnings)}
}

// Compare compares s with the baseline sample base, better being the
// metric's direction (Metric.Better).
func (s Sample) Compare(base Sample, better int) Delta {
	if len(s) == 0 || len(base) == 0 {
		return Delta{Percent: math.NaN(), P: math.NaN(), N1: len(base), N2: len(s)}
	}
	c := benchmath.AssumeNothing.Compare(base.bench(), s.bench())
	d := Delta{P: c.P, N1: c.N1, N2: c.N2, Significant: c.P < Alpha, Caveats: errorStrings(c.Warnings)}
	old, cur := base.Summarize().Median, s.Summarize().Median
	switch {
	case old == cur:
		d.Percent = 0
	case old == 0:
		d.Percent = math.NaN()
	default:
		d.Percent = (cur/old - 1) * 100
	}
	if d.Significant && better != 0 && old != cur {
		d.Better = (cur < old) == (better < 0)
	}
	return d
}

// String formats the delta as benchstat does: "-12.34% (p=0.002 n=6)", or
// "~ (p=0.310 n=6)" when the change is not significant.
func (d Delta) String() string {
	stat := d.stat()
	if !d.Significant {
		return "~ " + stat
	}
	if math.IsNaN(d.Percent) {
		return "? " + stat
	}
	return fmt.Sprintf("%+.2f%% %s", d.Percent, stat)
}

func (d Delta) stat() string {
	var s string
	if !math.IsNaN(d.P) {
		s = fmt.Sprintf("p=%.3f ", d.P)
	}
	if d.N1 == d.N2 {
		return "(" + s + fmt.Sprintf("n=%d)", d.N1)
	}
	return "(" + s + fmt.Sprintf("n=%d+%d)", d.N1, d.N2)
}

func errorStrings(errs []error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
