package agent

import (
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"time"
)

// Snapshot is what the metrics endpoint serves: every runtime/metrics
// sample the runtime supports, read at once, with what the reader needs to
// interpret them. It is the JSON document's schema; gcdoctor decodes it
// with this same type.
type Snapshot struct {
	// GoVersion is runtime.Version() ("go1.26.1").
	GoVersion string `json:"go_version"`
	// NumCPU is runtime.NumCPU(): the CPUs the process may run on.
	NumCPU int `json:"num_cpu"`
	// TimeUnixNano is when the samples were read, by the program's clock.
	TimeUnixNano int64 `json:"time_unix_nano"`
	// Metrics maps each runtime/metrics name ("/gc/cycles/total:gc-cycles")
	// to its value.
	Metrics map[string]Value `json:"metrics"`
	// FlightRecorder reports whether the flightrecorder endpoint serves a
	// snapshot; GoroutineLeak whether the goroutineleak endpoint serves a
	// profile.
	FlightRecorder bool `json:"flight_recorder"`
	GoroutineLeak  bool `json:"goroutine_leak"`
}

// Value is one runtime/metrics value: exactly one field is set.
type Value struct {
	Uint64    *uint64    `json:"uint64,omitempty"`
	Float64   *Float     `json:"float64,omitempty"`
	Histogram *Histogram `json:"histogram,omitempty"`
}

// Histogram is a runtime/metrics Float64Histogram: Counts[i] samples fell
// in [Buckets[i], Buckets[i+1]).
type Histogram struct {
	Counts  []uint64 `json:"counts"`
	Buckets []Float  `json:"buckets"`
}

// Float is a float64 whose infinities and NaN, which runtime/metrics uses
// for the open ends of histogram buckets, travel in JSON as the strings
// "+Inf", "-Inf" and "NaN", as Prometheus writes them.
type Float float64

// MarshalJSON writes the number, or a string for a value JSON has no
// number for.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Float) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "+Inf", "Inf":
			*f = Float(math.Inf(1))
		case "-Inf":
			*f = Float(math.Inf(-1))
		case "NaN":
			*f = Float(math.NaN())
		default:
			return errors.New("agent: not a number: " + strconv.Quote(s))
		}
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return errors.New("agent: not a number: " + strconv.Quote(string(b)))
	}
	*f = Float(v)
	return nil
}

// Read reads every runtime/metrics sample the runtime supports.
func Read() *Snapshot {
	descs := metrics.All()
	samples := make([]metrics.Sample, 0, len(descs))
	for _, d := range descs {
		samples = append(samples, metrics.Sample{Name: d.Name})
	}
	metrics.Read(samples)
	s := &Snapshot{GoVersion: runtime.Version(), NumCPU: runtime.NumCPU(), TimeUnixNano: time.Now().UnixNano(),
		Metrics: make(map[string]Value, len(samples))}
	for _, m := range samples {
		switch m.Value.Kind() {
		case metrics.KindUint64:
			v := m.Value.Uint64()
			s.Metrics[m.Name] = Value{Uint64: &v}
		case metrics.KindFloat64:
			v := Float(m.Value.Float64())
			s.Metrics[m.Name] = Value{Float64: &v}
		case metrics.KindFloat64Histogram:
			h := m.Value.Float64Histogram()
			out := &Histogram{Counts: h.Counts, Buckets: make([]Float, len(h.Buckets))}
			for i, b := range h.Buckets {
				out.Buckets[i] = Float(b)
			}
			s.Metrics[m.Name] = Value{Histogram: out}
		}
	}
	return s
}

// Snapshot reads the runtime's metrics and says what the agent's other
// endpoints serve.
func (a *Agent) Snapshot() *Snapshot {
	s := Read()
	s.FlightRecorder = a.fr != nil
	s.GoroutineLeak = pprof.Lookup(GoroutineLeakPath) != nil
	return s
}

func (s *Snapshot) encode() ([]byte, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
