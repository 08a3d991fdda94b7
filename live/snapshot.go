package live

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/gcdoctor/gcdoctor/agent"
)

// Snapshot is what a service's sources served at one moment.
type Snapshot struct {
	// Time is when the snapshot was taken, by the reader's clock.
	Time time.Time
	// MemStats are the runtime's MemStats, from the heap profile or else
	// expvar; nil when neither was read. MemStatsFrom says which.
	MemStats     *MemStatsFigures
	MemStatsFrom Source
	// Metrics are the series of /metrics, nil when not read.
	Metrics *MetricsFigures
	// Agent is what gcdoctor's agent served, nil when not read.
	Agent *agent.Snapshot
	// Raw holds what each source served (the heap profile cut to its
	// MemStats), to be stored and read again with Add.
	Raw map[Source][]byte
}

// NewSnapshot returns an empty snapshot taken at t.
func NewSnapshot(t time.Time) *Snapshot {
	return &Snapshot{Time: t, Raw: map[Source][]byte{}}
}

// Add reads what a source served into the snapshot; name is the input's
// name for errors. What does not parse is an error, and leaves the snapshot
// as it was.
func (s *Snapshot) Add(src Source, data []byte, name string) error {
	switch src {
	case MemStats, Expvar:
		parse := ParseMemStats
		if src == Expvar {
			parse = ParseExpvar
		} else {
			data = TrimMemStats(data)
		}
		m, err := parse(data, name)
		if err != nil {
			return err
		}
		// The heap profile's MemStats are preferred: they are what most
		// services serve, and expvar's are the same figures.
		if s.MemStats == nil || src == MemStats {
			s.MemStats, s.MemStatsFrom = m, src
		}
	case Metrics:
		m, err := ParseMetrics(data, name)
		if err != nil {
			return err
		}
		s.Metrics = m
	case Agent:
		var a agent.Snapshot
		if err := json.Unmarshal(data, &a); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		if len(a.Metrics) == 0 {
			return fmt.Errorf("%s: no runtime/metrics samples", name)
		}
		s.Agent = &a
	default:
		return fmt.Errorf("%s: unknown source %q", name, src)
	}
	s.Raw[src] = data
	return nil
}

// Sources lists the sources the snapshot holds, in the order of Sources.
func (s *Snapshot) Sources() []Source {
	var out []Source
	for _, src := range Sources {
		if _, ok := s.Raw[src]; ok {
			out = append(out, src)
		}
	}
	return out
}

// rm returns a runtime/metrics value from the agent, NaN when absent.
func (s *Snapshot) rm(name string) float64 {
	if s.Agent == nil {
		return math.NaN()
	}
	v, ok := s.Agent.Metrics[name]
	switch {
	case !ok:
		return math.NaN()
	case v.Uint64 != nil:
		return float64(*v.Uint64)
	case v.Float64 != nil:
		return float64(*v.Float64)
	}
	return math.NaN()
}

// hist returns a runtime/metrics histogram from the agent, nil when absent.
func (s *Snapshot) hist(name string) *agent.Histogram {
	if s.Agent == nil {
		return nil
	}
	return s.Agent.Metrics[name].Histogram
}

// metric returns a /metrics series, NaN when absent.
func (s *Snapshot) metric(name string) float64 { return s.Metrics.get(name) }
