// Package quantile holds samples for percentile queries in bounded memory:
// exactly for small inputs, within 1% relative error for large ones.
package quantile

import (
	"math"

	"github.com/DataDog/sketches-go/ddsketch"
)

// exactLimit is how many samples a Sample keeps exactly. Beyond it the
// samples move into a DDSketch, whose relative error is bounded (1%), so a
// process or trace with millions of pauses still summarises in a few KiB.
const exactLimit = 4096

// Sample accumulates non-negative values. The zero value is empty and ready.
type Sample struct {
	exact  []float64
	sketch *ddsketch.DDSketch
	n      int
	sum    float64
	max    float64
}

// Add records a value.
func (q *Sample) Add(v float64) {
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

// sketchValue maps zero into the sketch's positive range: 1e-6, far below
// the resolution of any figure recorded here.
func sketchValue(v float64) float64 { return max(v, 1e-6) }

// N returns the number of values added.
func (q *Sample) N() int { return q.n }

// Sum returns the sum of the values added.
func (q *Sample) Sum() float64 { return q.sum }

// Max returns the largest value added, 0 when empty.
func (q *Sample) Max() float64 { return q.max }

// Approximate reports whether quantiles come from the sketch.
func (q *Sample) Approximate() bool { return q.sketch != nil }

// Quantile returns the p-quantile (0 ≤ p ≤ 1) by the nearest-rank method,
// or NaN when there are no values. It may reorder the stored values.
func (q *Sample) Quantile(p float64) float64 {
	if q.n == 0 {
		return math.NaN()
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
	rank := max(int(math.Ceil(p*float64(len(q.exact))))-1, 0)
	return nth(q.exact, rank)
}

// nth returns the k-th smallest value of s (0-based), reordering s. A
// selection is linear where a sort is not, and callers ask for a few
// percentiles only.
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
