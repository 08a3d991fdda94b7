package live

import "math"

// heap reads the allocation in the window and the heap at its end.
func (k *KPIs) heap(p pair) {
	b := p.b
	k.AllocBytes = first(
		p.delta(func(s *Snapshot) float64 { return s.rm("/gc/heap/allocs:bytes") }),
		p.delta(func(s *Snapshot) float64 {
			return ms(s, func(m *MemStatsFigures) float64 { return float64(m.TotalAlloc) })
		}),
		p.delta(func(s *Snapshot) float64 { return s.metric("go_memstats_alloc_bytes_total") }))
	if k.AllocBytes < 0 {
		k.AllocBytes = math.NaN()
	}
	k.AllocBytesPerSecond = k.AllocBytes / k.WindowS
	k.HeapAllocBytes = first(b.rm("/memory/classes/heap/objects:bytes"),
		ms(b, func(m *MemStatsFigures) float64 { return float64(m.HeapAlloc) }),
		b.metric("go_memstats_heap_alloc_bytes"))
	k.HeapGoalBytes = first(b.rm("/gc/heap/goal:bytes"),
		ms(b, func(m *MemStatsFigures) float64 { return float64(m.NextGC) }),
		b.metric("go_gc_heap_goal_bytes"), b.metric("go_memstats_next_gc_bytes"))
	k.StackBytes = first(b.rm("/gc/scan/stack:bytes"), b.metric("go_gc_scan_stack_bytes"),
		ms(b, func(m *MemStatsFigures) float64 { return float64(m.StackInuse) }),
		b.metric("go_memstats_stack_inuse_bytes"))
	k.GlobalsBytes = first(b.rm("/gc/scan/globals:bytes"), b.metric("go_gc_scan_globals_bytes"))
	k.LiveHeapBytes = first(b.rm("/gc/heap/live:bytes"), b.metric("go_gc_heap_live_bytes"))
	if math.IsNaN(k.LiveHeapBytes) {
		k.estimateLive()
	}
}

// estimateLive estimates the live heap from the goal: under GOGC alone
// the goal is the live heap × (1 + GOGC/100). A goal that a memory limit
// may have capped, or the minimum heap, says nothing of the live heap.
func (k *KPIs) estimateLive() {
	gogc := k.GOGC
	if gogc == 0 {
		gogc = 100
	}
	goal := k.HeapGoalBytes
	if gogc < 0 || math.IsNaN(goal) || goal <= 4<<20*float64(gogc)/100*1.001 {
		return
	}
	lim := k.MemoryLimitBytes
	if !math.IsNaN(lim) && !math.IsInf(lim, 1) && goal >= 0.9*lim {
		return
	}
	k.LiveHeapBytes = goal / (1 + float64(gogc)/100)
	k.LiveEstimated = true
	if k.GOGC == 0 || math.IsNaN(lim) {
		k.Caveats = append(k.Caveats, "the live heap is estimated from the heap goal assuming GOGC=100 and no memory limit, which no source gives")
	}
}

// scanBytes is what a cycle scans: the live heap, stacks and globals;
// NaN when the live heap is unknown.
func (k *KPIs) scanBytes() float64 {
	zero := func(v float64) float64 {
		if math.IsNaN(v) {
			return 0
		}
		return v
	}
	return k.LiveHeapBytes + zero(k.StackBytes) + zero(k.GlobalsBytes)
}
