package exectrace

import (
	"math"
	"slices"

	"github.com/DataDog/sketches-go/ddsketch"
)

// exactLimit is how many samples a quantiles keeps exactly; beyond it they
// move into a DDSketch (1% relative error), so a trace with millions of
// pauses still summarises in a few KiB.
const exactLimit = 4096

// quantiles accumulates samples (ms) for percentile queries.
type quantiles struct {
	exact  []float64
	sketch *ddsketch.DDSketch
	n      int
	sum    float64
	max    float64
}

func (q *quantiles) add(v float64) {
	q.n++
	q.sum += v
	q.max = max(q.max, v)
	if q.sketch == nil {
		if len(q.exact) < exactLimit {
			q.exact = append(q.exact, v)
			return
		}
		s, err := ddsketch.NewDefaultDDSketch(0.01)
		if err != nil {
			panic(err) // the accuracy is a valid constant
		}
		for _, x := range q.exact {
			s.Add(sketchValue(x))
		}
		q.sketch, q.exact = s, nil
	}
	q.sketch.Add(sketchValue(v))
}

// sketchValue maps zero into the sketch's positive range: 1 ns, far below
// the trace's resolution in ms.
func sketchValue(v float64) float64 { return max(v, 1e-6) }

// quantile returns the p-quantile by the nearest-rank method (0 when empty).
func (q *quantiles) quantile(p float64) float64 {
	if q.n == 0 {
		return 0
	}
	if p >= 1 {
		return q.max
	}
	if q.sketch != nil {
		v, err := q.sketch.GetValueAtQuantile(p)
		if err != nil {
			return q.max
		}
		return min(v, q.max)
	}
	if !slices.IsSorted(q.exact) {
		slices.Sort(q.exact)
	}
	rank := int(math.Ceil(p * float64(len(q.exact))))
	return q.exact[max(rank, 1)-1]
}

func (q *quantiles) stats() PauseStats {
	return PauseStats{
		Count:   q.n,
		TotalMS: q.sum,
		P50MS:   q.quantile(0.50),
		P95MS:   q.quantile(0.95),
		P99MS:   q.quantile(0.99),
		MaxMS:   q.max,
	}
}

// shareBins is the resolution of a shareHist: 0.5%.
const shareBins = 200

// shareHist is a fixed-size histogram of shares in [0, 1], one per group,
// so that per-goroutine distributions cost the same for ten goroutines as
// for ten million.
type shareHist struct {
	bins [shareBins]uint32
	n    uint64
	max  float64
}

func (h *shareHist) add(v float64) {
	v = clamp01(v)
	i := min(int(v*shareBins), shareBins-1)
	h.bins[i]++
	h.n++
	h.max = max(h.max, v)
}

// quantile returns the upper edge of the bin holding the p-quantile,
// capped at the largest value seen.
func (h *shareHist) quantile(p float64) float64 {
	if h.n == 0 {
		return 0
	}
	rank := max(uint64(math.Ceil(p*float64(h.n))), 1)
	var cum uint64
	for i, c := range h.bins {
		cum += uint64(c)
		if cum >= rank {
			return min(float64(i+1)/shareBins, h.max)
		}
	}
	return h.max
}

func (h *shareHist) dist() Dist {
	return Dist{P50: h.quantile(0.5), P95: h.quantile(0.95), P99: h.quantile(0.99), Max: h.max}
}

// Log-scale histogram of durations: 20 bins per decade from 1 µs to
// about 11 days, with everything shorter in the first bin.
const (
	logBinsPerDecade = 20
	logBins          = 12 * logBinsPerDecade
	logMinNS         = 1e3
)

// logHist is a fixed-size histogram of durations (ns), within about 12%.
type logHist struct {
	bins [logBins]uint32
	n    uint64
	max  int64
}

func (h *logHist) add(ns int64) {
	i := 0
	if ns > logMinNS {
		i = min(int(math.Log10(float64(ns)/logMinNS)*logBinsPerDecade), logBins-1)
	}
	h.bins[i]++
	h.n++
	h.max = max(h.max, ns)
}

// quantile returns the upper edge of the bin holding the p-quantile, ns,
// capped at the largest value seen.
func (h *logHist) quantile(p float64) float64 {
	if h.n == 0 {
		return 0
	}
	rank := max(uint64(math.Ceil(p*float64(h.n))), 1)
	var cum uint64
	for i, c := range h.bins {
		cum += uint64(c)
		if cum >= rank {
			return min(logMinNS*math.Pow(10, float64(i+1)/logBinsPerDecade), float64(h.max))
		}
	}
	return float64(h.max)
}

// distMS returns the distribution in ms.
func (h *logHist) distMS() Dist {
	return Dist{P50: h.quantile(0.5) / 1e6, P95: h.quantile(0.95) / 1e6, P99: h.quantile(0.99) / 1e6, Max: float64(h.max) / 1e6}
}
