package exectrace

import "golang.org/x/exp/trace"

// heapSeries downsamples the heap metrics into at most max points. Each
// point covers an interval of the trace and keeps the largest live heap and
// goal seen in it, so peaks survive. When the points would outgrow max, the
// interval doubles and neighbouring points merge.
type heapSeries struct {
	max   int
	start int64 // ns, trace clock
	width int64 // ns per point
	pts   []heapPoint
}

type heapPoint struct {
	idx        int64 // interval number: start + idx×width
	live, goal uint64
}

// firstWidth is the initial interval of a heap point: 1 ms.
const firstWidth = 1e6

func (h *heapSeries) add(t int64, live, goal uint64) {
	if h.max <= 0 {
		return
	}
	if h.width == 0 {
		h.width = firstWidth
	}
	idx := max(t-h.start, 0) / h.width
	for idx >= int64(h.max) {
		h.halve()
		idx = max(t-h.start, 0) / h.width
	}
	if n := len(h.pts); n > 0 && h.pts[n-1].idx == idx {
		p := &h.pts[n-1]
		p.live = max(p.live, live)
		p.goal = max(p.goal, goal)
		return
	}
	h.pts = append(h.pts, heapPoint{idx: idx, live: live, goal: goal})
}

// halve doubles the interval and merges the points that now share one.
func (h *heapSeries) halve() {
	h.width *= 2
	out := h.pts[:0]
	for _, p := range h.pts {
		p.idx /= 2
		if n := len(out); n > 0 && out[n-1].idx == p.idx {
			out[n-1].live = max(out[n-1].live, p.live)
			out[n-1].goal = max(out[n-1].goal, p.goal)
			continue
		}
		out = append(out, p)
	}
	h.pts = out
}

func (h *heapSeries) samples(first trace.Time) []HeapSample {
	out := make([]HeapSample, len(h.pts))
	for i, p := range h.pts {
		out[i] = HeapSample{
			AtMS:      float64(h.start+p.idx*h.width-int64(first)) / 1e6,
			LiveBytes: p.live,
			GoalBytes: p.goal,
		}
	}
	return out
}
