package exectrace

import (
	"slices"
	"time"
)

// utilSeries is the mutator utilization as a step function: us[i] holds
// from ts[i] until ts[i+1] (the last one until the end of the trace).
// Utilization only changes while the collector is active, so the series
// grows with the GC work in the trace, not its length; two parallel slices
// keep each step at 12 bytes.
type utilSeries struct {
	ts []int64   // ns, trace clock
	us []float32 // 0–1
	// max bounds the steps kept (0: no bound); full is set once a step
	// was refused, and the series then ends at its last step.
	max  int
	full bool
}

// add records that the utilization is u from time t on. A later value at
// the same time replaces an earlier one: only the state after all the
// events at one instant lasts.
func (s *utilSeries) add(t int64, u float32) {
	n := len(s.ts)
	if s.full {
		return
	}
	if n > 0 {
		if s.us[n-1] == u {
			return
		}
		if s.ts[n-1] >= t {
			s.us[n-1] = u
			if n > 1 && s.us[n-2] == u {
				s.ts, s.us = s.ts[:n-1], s.us[:n-1]
			}
			return
		}
	}
	if s.full || (s.max > 0 && n >= s.max) {
		s.full = true
		return
	}
	s.ts = append(s.ts, t)
	s.us = append(s.us, u)
}

// integrator computes the integral of a utilSeries from its start, for
// arguments that never decrease, in amortised constant time.
type integrator struct {
	s   *utilSeries
	i   int
	cum float64 // integral from ts[0] to ts[i]
}

func (in *integrator) at(x int64) float64 {
	ts, us := in.s.ts, in.s.us
	for in.i+1 < len(ts) && ts[in.i+1] <= x {
		in.cum += float64(us[in.i]) * float64(ts[in.i+1]-ts[in.i])
		in.i++
	}
	return in.cum + float64(us[in.i])*float64(x-ts[in.i])
}

// mmu returns the minimum mean utilization over every window of length w
// between the start of the series and end.
//
// The integral over a window [t, t+w] is piecewise linear in t and its
// slope only changes when t or t+w crosses a step, so the minimum is found
// with one edge on a step (or on an end of the series): two passes over the
// steps, each with a pair of integrators moving forward only.
func (s *utilSeries) mmu(w, end int64) float64 {
	if len(s.ts) == 0 {
		return 1
	}
	start := s.ts[0]
	total := end - start
	if total <= 0 {
		return float64(s.us[0])
	}
	if w >= total {
		in := integrator{s: s}
		return clamp01(in.at(end) / float64(total))
	}
	lo := float64(w) // integral of a fully utilized window
	// Windows starting on a step.
	left, right := integrator{s: s}, integrator{s: s}
	for _, t := range s.ts {
		if t+w > end {
			break
		}
		lo = min(lo, right.at(t+w)-left.at(t))
	}
	// Windows ending on a step or at the end.
	left, right = integrator{s: s}, integrator{s: s}
	for _, t := range s.ts {
		if t-w < start {
			continue
		}
		lo = min(lo, right.at(t)-left.at(t-w))
	}
	lo = min(lo, right.at(end)-left.at(end-w))
	return clamp01(lo / float64(w))
}

// curve computes the MMU at each window no longer than the series, in
// increasing window order.
func (s *utilSeries) curve(windows []time.Duration, end int64) MMU {
	ws := slices.Clone(windows)
	slices.Sort(ws)
	ws = slices.Compact(ws)
	m := MMU{Steps: len(s.ts)}
	span := int64(0)
	if len(s.ts) > 0 {
		span = end - s.ts[0]
	}
	for _, w := range ws {
		// A window longer than the trace has no MMU of its own: it
		// would repeat the whole trace's utilization, as if measured.
		if w <= 0 || (span > 0 && int64(w) > span) {
			continue
		}
		m.Points = append(m.Points, MMUPoint{WindowMS: float64(w) / 1e6, Util: s.mmu(int64(w), end)})
	}
	// The whole trace is the longest window.
	bound := 1.0
	if len(s.ts) > 0 {
		bound = s.mmu(end-s.ts[0], end)
	}
	for i := len(m.Points) - 1; i >= 0; i-- {
		bound = min(bound, m.Points[i].Util)
		m.Points[i].Bounded = bound
	}
	m.At1ms = s.mmu(int64(time.Millisecond), end)
	m.At10ms = s.mmu(int64(10*time.Millisecond), end)
	m.At100ms = s.mmu(int64(100*time.Millisecond), end)
	return m
}

func clamp01(x float64) float64 {
	return min(1, max(0, x))
}
