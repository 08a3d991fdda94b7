package live

import (
	"fmt"
	"math"
	"slices"

	"github.com/gcdoctor/gcdoctor/agent"
)

// pauses reads the window's stop-the-world pauses from the best source:
// the MemStats pause rings when they saw every cycle of the window, the
// agent's pause histogram, what the rings saw, or client_golang's summary
// of the last pauses.
func (k *KPIs) pauses(p pair) {
	if k.Cycles == 0 {
		k.Pauses.Window = true
		k.Pauses.From = "no cycle ended in the window"
		return
	}
	seen, want := ringPauses(p)
	switch {
	case want > 0 && len(seen) == want:
		k.Pauses.fromRing(seen, true)
		k.Pauses.From = "MemStats.PauseNs, every cycle of the window"
	case k.Pauses.fromHistogram(p):
	case len(seen) > 0:
		k.Pauses.fromRing(seen, false)
		k.Pauses.From = fmt.Sprintf("MemStats.PauseNs, %d of the window's %d cycles", len(seen), want)
		k.Caveats = append(k.Caveats, fmt.Sprintf("the pauses of %d of the window's %d cycles were seen: more than 256 cycles passed between two samples", want-len(seen), want))
	default:
		k.Pauses.fromSummary(p, k.Cycles)
	}
	if math.IsNaN(k.Pauses.TotalMS) {
		k.Pauses.TotalMS = 1000 * first(
			p.delta(func(s *Snapshot) float64 {
				if s.Metrics == nil || s.Metrics.Pauses == nil {
					return math.NaN()
				}
				return s.Metrics.Pauses.SumS
			}),
			p.delta(func(s *Snapshot) float64 {
				if s.MemStatsFrom != Expvar {
					return math.NaN()
				}
				return float64(s.MemStats.PauseTotalNs) / 1e9
			}))
	}
}

// ringPauses gathers, from the MemStats pause rings of every snapshot, the
// pause of each cycle of the window (ns by cycle number), and says how many
// cycles the window has.
func ringPauses(p pair) (seen map[uint32]uint64, want int) {
	if p.a.MemStats == nil || p.b.MemStats == nil {
		return nil, 0
	}
	lo, hi := p.a.MemStats.NumGC, p.b.MemStats.NumGC
	seen = map[uint32]uint64{}
	for _, s := range append([]*Snapshot{p.a, p.b}, p.during...) {
		if s == nil || s.MemStats == nil {
			continue
		}
		s.MemStats.pauses(func(c uint32, ns uint64) {
			if c > lo && c <= hi {
				seen[c] = ns
			}
		})
	}
	return seen, int(hi - lo)
}

// fromRing sets the figures from the pauses of whole cycles.
func (ps *Pauses) fromRing(seen map[uint32]uint64, all bool) {
	v := make([]float64, 0, len(seen))
	total := 0.0
	for _, ns := range seen {
		v = append(v, float64(ns)/1e6)
		total += float64(ns) / 1e6
	}
	slices.Sort(v)
	ps.Count, ps.PerCycle, ps.Window = len(v), true, all
	ps.MaxMS, ps.P50MS, ps.P99MS = v[len(v)-1], rank(v, 0.5), rank(v, 0.99)
	if all {
		ps.TotalMS = total
	}
}

// rank returns the q-quantile of sorted values, nearest rank.
func rank(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// pauseHistograms are the agent's histograms of single stop-the-world
// pauses, newest name first (Go 1.22 renamed the metric).
var pauseHistograms = []string{"/sched/pauses/total/gc:seconds", "/gc/pauses:seconds"}

// fromHistogram sets the figures from the agent's pause histogram, and
// reports whether it could.
func (ps *Pauses) fromHistogram(p pair) bool {
	for _, name := range pauseHistograms {
		d := histDelta(p.a.hist(name), p.b.hist(name))
		if d == nil || d.n == 0 {
			continue
		}
		ps.Count, ps.Window = int(d.n), true
		ps.MaxMS, ps.P50MS, ps.P99MS = d.quantile(1)*1000, d.quantile(0.5)*1000, d.quantile(0.99)*1000
		ps.From = "runtime/metrics " + name + " (agent): each figure the upper bound of its histogram bucket, at most 25% above the pause"
		return true
	}
	return false
}

// fromSummary sets the figures from client_golang's go_gc_duration_seconds
// at the end of the window: quantiles of the last pauses (at most 256)
// whether in the window or not.
func (ps *Pauses) fromSummary(p pair, cycles int) {
	m := p.b.Metrics
	if m == nil || m.Pauses == nil || m.Pauses.Count == 0 {
		ps.From = "no source gives the pauses"
		return
	}
	q := m.Pauses.Quantiles
	get := func(x float64) float64 {
		if v, ok := q[x]; ok {
			return v * 1000
		}
		return math.NaN()
	}
	ps.MaxMS, ps.P50MS = get(1), get(0.5)
	ps.Count = int(min(m.Pauses.Count, 256))
	ps.PerCycle = true
	switch {
	case ps.Count == cycles:
		ps.Window = true
		ps.From = fmt.Sprintf("go_gc_duration_seconds: the window's %d cycles", cycles)
	case ps.Count < cycles:
		ps.From = fmt.Sprintf("go_gc_duration_seconds: the last %d of the window's %d cycles", ps.Count, cycles)
	default:
		ps.From = fmt.Sprintf("go_gc_duration_seconds: the last %d cycles, %d of them before the window", ps.Count, ps.Count-cycles)
	}
}

// histogram is the difference of two runtime/metrics histograms.
type histogram struct {
	counts  []uint64
	buckets []float64
	n       uint64
}

// histDelta returns b − a, nil when either is missing, their buckets
// differ, or a count went back.
func histDelta(a, b *agent.Histogram) *histogram {
	if a == nil || b == nil || len(a.Counts) != len(b.Counts) || len(b.Buckets) != len(b.Counts)+1 {
		return nil
	}
	d := &histogram{counts: make([]uint64, len(b.Counts)), buckets: make([]float64, len(b.Buckets))}
	for i := range b.Counts {
		if b.Counts[i] < a.Counts[i] {
			return nil
		}
		d.counts[i] = b.Counts[i] - a.Counts[i]
		d.n += d.counts[i]
	}
	for i, v := range b.Buckets {
		d.buckets[i] = float64(v)
	}
	return d
}

// quantile returns the upper bound of the bucket that holds the
// q-quantile (its lower bound for the last, open bucket).
func (h *histogram) quantile(q float64) float64 {
	target := uint64(math.Ceil(q * float64(h.n)))
	var cum uint64
	for i, c := range h.counts {
		cum += c
		if c > 0 && cum >= max(target, 1) {
			if hi := h.buckets[i+1]; !math.IsInf(hi, 1) {
				return hi
			}
			return h.buckets[i]
		}
	}
	return math.NaN()
}

// schedLatency reads the 99th percentile of the scheduling latency in the
// window from the agent.
func (k *KPIs) schedLatency(p pair) {
	k.SchedLatencyP99MS = math.NaN()
	if d := histDelta(p.a.hist("/sched/latencies:seconds"), p.b.hist("/sched/latencies:seconds")); d != nil && d.n > 0 {
		k.SchedLatencyP99MS = d.quantile(0.99) * 1000
	}
}
