package quantile

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestNth(t *testing.T) {
	for _, s := range [][]float64{{1}, {3, 1, 2}, {5, 5, 5, 1}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, {0.1, 0.1, 0.2, 0.05, 3, 0.1}} {
		want := slices.Clone(s)
		slices.Sort(want)
		for k := range s {
			if got := nth(slices.Clone(s), k); got != want[k] {
				t.Errorf("nth(%v, %d) = %v, want %v", s, k, got, want[k])
			}
		}
	}
}

func TestExactAndSketch(t *testing.T) {
	var empty Sample
	if !math.IsNaN(empty.Quantile(0.5)) {
		t.Errorf("empty sample has a median")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{10, exactLimit, 50000} {
		var q Sample
		var all []float64
		for range n {
			v := r.ExpFloat64()
			q.Add(v)
			all = append(all, v)
		}
		slices.Sort(all)
		for _, p := range []float64{0.5, 0.95, 0.99} {
			want := all[max(int(math.Ceil(p*float64(n)))-1, 0)]
			got := q.Quantile(p)
			if tol := 0.0; q.Approximate() {
				tol = 0.02 * want
				if math.Abs(got-want) > tol {
					t.Errorf("n=%d p=%v: %v, want %v within 2%%", n, p, got, want)
				}
			} else if got != want {
				t.Errorf("n=%d p=%v: %v, want exactly %v", n, p, got, want)
			}
		}
		if q.Approximate() != (n > exactLimit) || q.N() != n || q.Max() != all[n-1] {
			t.Errorf("n=%d: approximate=%v N=%d max=%v", n, q.Approximate(), q.N(), q.Max())
		}
	}
}
