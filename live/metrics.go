package live

import (
	"bytes"
	"fmt"
	"math"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// MetricsFigures are the series of a Prometheus /metrics page the KPIs
// use, as client_golang's Go and process collectors export them.
type MetricsFigures struct {
	// Values holds each series without labels (gauges, counters and
	// untyped), by name: "go_memstats_heap_alloc_bytes".
	Values map[string]float64
	// GoVersion is go_info's version label, "" when absent.
	GoVersion string
	// Pauses is go_gc_duration_seconds: a summary of the last pauses
	// (debug.ReadGCStats, at most 256), nil when absent.
	Pauses *PauseSummary
}

// PauseSummary is go_gc_duration_seconds.
type PauseSummary struct {
	// Count is the number of cycles so far (NumGC), SumS their pauses'
	// total, s.
	Count uint64
	SumS  float64
	// Quantiles maps 0, 0.25, 0.5, 0.75 and 1 to pauses, s: over the most
	// recent pauses only.
	Quantiles map[float64]float64
}

// ParseMetrics reads the Prometheus text exposition format. A page that is
// not in that format is an error giving the line where it fails.
func ParseMetrics(data []byte, name string) (*MetricsFigures, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	m := &MetricsFigures{Values: map[string]float64{}}
	for name, f := range fams {
		m.add(name, f)
	}
	if len(m.Values) == 0 && m.Pauses == nil && m.GoVersion == "" {
		return nil, fmt.Errorf("%s: no series of the Go or process collectors", name)
	}
	return m, nil
}

// add keeps what a family gives.
func (m *MetricsFigures) add(name string, f *dto.MetricFamily) {
	ms := f.GetMetric()
	if len(ms) == 0 {
		return
	}
	switch {
	case name == "go_info":
		for _, l := range ms[0].GetLabel() {
			if l.GetName() == "version" {
				m.GoVersion = l.GetValue()
			}
		}
	case f.GetType() == dto.MetricType_SUMMARY && name == "go_gc_duration_seconds":
		s := ms[0].GetSummary()
		ps := &PauseSummary{Count: s.GetSampleCount(), SumS: s.GetSampleSum(), Quantiles: map[float64]float64{}}
		for _, q := range s.GetQuantile() {
			ps.Quantiles[q.GetQuantile()] = q.GetValue()
		}
		m.Pauses = ps
	case len(ms) == 1 && len(ms[0].GetLabel()) == 0:
		if v, ok := scalar(ms[0]); ok {
			m.Values[name] = v
		}
	}
}

// scalar returns the value of a gauge, counter or untyped series.
func scalar(s *dto.Metric) (float64, bool) {
	switch {
	case s.Gauge != nil:
		return s.Gauge.GetValue(), true
	case s.Counter != nil:
		return s.Counter.GetValue(), true
	case s.Untyped != nil:
		return s.Untyped.GetValue(), true
	}
	return math.NaN(), false
}

// get returns a series' value, NaN when absent.
func (m *MetricsFigures) get(name string) float64 {
	if m == nil {
		return math.NaN()
	}
	if v, ok := m.Values[name]; ok {
		return v
	}
	return math.NaN()
}
