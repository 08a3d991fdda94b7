package exectrace

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// series builds a utilSeries from (time, util) pairs.
func series(steps ...float64) *utilSeries {
	s := &utilSeries{}
	for i := 0; i+1 < len(steps); i += 2 {
		s.add(int64(steps[i]), float32(steps[i+1]))
	}
	return s
}

func TestMMU(t *testing.T) {
	const ms = 1e6
	for _, tc := range []struct {
		name   string
		s      *utilSeries
		end    int64
		window int64
		want   float64
	}{
		{"empty", series(), 100 * ms, ms, 1},
		{"no GC", series(0, 1), 100 * ms, ms, 1},
		{"pause 1ms, window 1ms", series(0, 1, 10*ms, 0, 11*ms, 1), 100 * ms, ms, 0},
		{"pause 1ms, window 2ms", series(0, 1, 10*ms, 0, 11*ms, 1), 100 * ms, 2 * ms, 0.5},
		{"pause 1ms, window 10ms", series(0, 1, 10*ms, 0, 11*ms, 1), 100 * ms, 10 * ms, 0.9},
		{"pause at start", series(0, 0, ms, 1), 100 * ms, 4 * ms, 0.75},
		{"pause at end", series(0, 1, 99*ms, 0), 100 * ms, 4 * ms, 0.75},
		{"half the Ps", series(0, 1, 10*ms, 0.5, 30*ms, 1), 100 * ms, 10 * ms, 0.5},
		{"window over trace", series(0, 1, 10*ms, 0, 30*ms, 1), 100 * ms, 200 * ms, 0.8},
		{"two pauses", series(0, 1, 10*ms, 0, 11*ms, 1, 13*ms, 0, 14*ms, 1), 100 * ms, 5 * ms, 0.6},
		// Non-monotone: alternating 1 ms pauses; a 2 ms window is at
		// least half free, a 5 ms one can hold three pauses.
		{"alternating, 2ms", alternating(ms, 50), 100 * ms, 2 * ms, 0.5},
		{"alternating, 5ms", alternating(ms, 50), 100 * ms, 5 * ms, 0.4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.mmu(tc.window, tc.end); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("mmu = %v, want %v", got, tc.want)
			}
		})
	}
}

// alternating is n periods of a pause of d followed by d of mutator time.
func alternating(d int64, n int) *utilSeries {
	s := &utilSeries{}
	for i := 0; i < n; i++ {
		s.add(int64(2*i)*d, 0)
		s.add(int64(2*i+1)*d, 1)
	}
	return s
}

// bruteMMU slides the window in steps of 1 ns-unit over a small series.
func bruteMMU(s *utilSeries, w, end int64) float64 {
	start := s.ts[0]
	if w >= end-start {
		w = end - start
	}
	lo := math.Inf(1)
	for t := start; t+w <= end; t++ {
		var sum float64
		for x := t; x < t+w; x++ {
			i := 0
			for i+1 < len(s.ts) && s.ts[i+1] <= x {
				i++
			}
			sum += float64(s.us[i])
		}
		lo = min(lo, sum/float64(w))
	}
	return lo
}

// TestMMUBrute compares the step-based MMU with sliding a window over every
// position of random small series.
func TestMMUBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 300; iter++ {
		s := &utilSeries{}
		tm := int64(0)
		for i := 0; i < 1+r.IntN(12); i++ {
			s.add(tm, float32(r.IntN(5))/4)
			tm += 1 + int64(r.IntN(20))
		}
		end := tm + int64(r.IntN(10))
		w := 1 + int64(r.IntN(int(end-s.ts[0])+5))
		got, want := s.mmu(w, end), bruteMMU(s, w, end)
		if math.Abs(got-want) > 1e-6 {
			t.Fatalf("series %v %v end %d window %d: mmu %v, brute force %v", s.ts, s.us, end, w, got, want)
		}
	}
}

func TestCurveBounded(t *testing.T) {
	s := alternating(1e6, 50)
	m := s.curve([]time.Duration{5 * time.Millisecond, time.Millisecond, 2 * time.Millisecond, 2 * time.Millisecond}, 100e6)
	if len(m.Points) != 3 || m.Points[0].WindowMS != 1 || m.Points[2].WindowMS != 5 {
		t.Fatalf("points %+v", m.Points)
	}
	if m.Points[1].Util != 0.5 || m.Points[1].Bounded != 0.4 || m.Points[2].Bounded != 0.4 || m.At1ms != 0 {
		t.Errorf("points %+v", m.Points)
	}
	// Windows longer than the series are left out.
	m = s.curve([]time.Duration{time.Millisecond, 100 * time.Millisecond, time.Second}, 100e6)
	if len(m.Points) != 2 || m.Points[1].WindowMS != 100 {
		t.Errorf("points %+v, want the 1 and 100 ms windows only", m.Points)
	}
}

func TestUtilSeriesAdd(t *testing.T) {
	s := series(0, 1, 5, 0.5, 5, 1, 7, 1, 9, 0)
	// 5: 0.5 then 1 at the same instant leaves 1, which merges with the
	// step before; 7 repeats 1.
	if len(s.ts) != 2 || s.ts[1] != 9 || s.us[1] != 0 {
		t.Errorf("series %v %v", s.ts, s.us)
	}
}

func TestHeapSeries(t *testing.T) {
	h := heapSeries{max: 16}
	var peak uint64
	for i := int64(0); i < 100000; i++ {
		live := uint64(i%1000) * 10
		if i == 54321 {
			live = 1 << 40
		}
		peak = max(peak, live)
		h.add(i*1e5, live, 5000)
	}
	pts := h.samples(0)
	if len(pts) > 16 || len(pts) < 8 {
		t.Fatalf("%d points", len(pts))
	}
	var got uint64
	for i, p := range pts {
		got = max(got, p.LiveBytes)
		if i > 0 && p.AtMS <= pts[i-1].AtMS {
			t.Errorf("points out of order: %+v", pts)
		}
	}
	if got != peak {
		t.Errorf("peak %d lost: %d", peak, got)
	}
}

func TestBlockKinds(t *testing.T) {
	for reason, want := range map[string]blockKind{
		"chan send": blockChan, "chan receive": blockChan, "select": blockSelect,
		"sync": blockSync, "sync.(*Cond).Wait": blockSync, "network": blockNetwork,
		"sleep": blockSleep, "GC mark assist wait for work": blockGC, "wait until GC ends": blockGC,
		"preempted": blockGC, "unspecified": blockOther, "system goroutine wait": blockOther, "": blockOther,
	} {
		if got := blockKindOf(reason); got != want {
			t.Errorf("%q: %d, want %d", reason, got, want)
		}
	}
}
