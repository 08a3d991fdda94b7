package gctrace

import (
	"math"

	"github.com/DataDog/sketches-go/ddsketch"
)

// exactLimit is how many samples a quantiles keeps exactly. Beyond it the
// samples move into a DDSketch, whose relative error is bounded (1%), so a
// process with millions of cycles still summarises in a few KiB.
const exactLimit = 4096

// quantiles accumulates samples (pause times, ms) and answers percentile
// queries: exactly for small inputs, within 1% relative error for large ones.
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

// sketchValue maps zero pauses into the sketch's positive range: 0 ms
// becomes 1 ns, far below the 1 µs resolution of gctrace.
func sketchValue(v float64) float64 { return max(v, 1e-6) }

// quantile returns the p-quantile (0 ≤ p ≤ 1) by the nearest-rank method, or
// NaN when there are no samples.
func (q *quantiles) quantile(p float64) float64 {
	if q.n == 0 {
		return math.NaN()
	}
	if p >= 1 {
		return q.max
	}
	if q.sketch != nil {
		v, err := q.sketch.GetValueAtQuantile(p)
		if err != nil {
			return math.NaN()
		}
		return min(v, q.max)
	}
	rank := max(int(math.Ceil(p*float64(len(q.exact))))-1, 0)
	return nth(q.exact, rank)
}

// nth returns the k-th smallest value of s (0-based), reordering s. A
// selection is linear where a sort is not, and a summary asks for only a
// few percentiles.
func nth(s []float64, k int) float64 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		// Median of three as the pivot keeps sorted input linear too.
		mid := lo + (hi-lo)/2
		if s[mid] < s[lo] {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if s[hi] < s[lo] {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if s[hi] < s[mid] {
			s[hi], s[mid] = s[mid], s[hi]
		}
		pivot := s[mid]
		i, j := lo, hi
		for i <= j {
			for s[i] < pivot {
				i++
			}
			for s[j] > pivot {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return s[k]
		}
	}
	return s[k]
}

// approximate reports whether quantiles come from the sketch.
func (q *quantiles) approximate() bool { return q.sketch != nil }
