package exectrace

import (
	"math"

	"github.com/gcdoctor/gcdoctor/internal/quantile"
)

// quantiles accumulates samples (ms) for percentile queries; an empty one
// answers 0, as the result types expect.
type quantiles struct{ quantile.Sample }

func (q *quantiles) add(v float64) { q.Add(v) }

func (q *quantiles) quantile(p float64) float64 {
	if q.N() == 0 {
		return 0
	}
	return q.Quantile(p)
}

func (q *quantiles) stats() PauseStats {
	return PauseStats{
		Count:   q.N(),
		TotalMS: q.Sum(),
		P50MS:   q.quantile(0.50),
		P95MS:   q.quantile(0.95),
		P99MS:   q.quantile(0.99),
		MaxMS:   q.Max(),
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
