package pacer

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestHeapGoal(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name    string
		minor   int
		s       Setting
		h       Heap
		nonHeap float64
		want    Goal
	}{
		{"go1.18 counts stacks and globals", 21, Setting{GOGC: 100}, Heap{100, 10, 5}, 0, Goal{MiB: 215}},
		{"before go1.18 only the live heap", 17, Setting{GOGC: 100}, Heap{100, 10, 5}, 0, Goal{MiB: 200}},
		{"GOGC=50", 21, Setting{GOGC: 50}, Heap{100, 0, 0}, 0, Goal{MiB: 150}},
		{"minimum heap", 21, Setting{GOGC: 100}, Heap{1, 0, 0.2}, 0, Goal{MiB: 4, Minimum: true}},
		{"minimum heap scales with GOGC", 21, Setting{GOGC: 800}, Heap{1, 0, 0.2}, 0, Goal{MiB: 32, Minimum: true}},
		{"GOGC=0 has no minimum", 21, Setting{GOGC: 0}, Heap{1, 0, 0}, 0, Goal{MiB: 1}},
		{"GOGC=off without a limit", 21, Setting{GOGC: Off}, Heap{100, 0, 0}, 0, Goal{MiB: inf}},
		{"limit below the GOGC goal", 21, Setting{GOGC: 100, MemoryLimit: 200 << 20}, Heap{100, 0, 0}, 10, Goal{MiB: 190 - 190*0.03, Limited: true}},
		{"limit above the GOGC goal", 21, Setting{GOGC: 100, MemoryLimit: 1 << 30}, Heap{100, 0, 0}, 10, Goal{MiB: 200}},
		{"GOGC=off with a limit", 21, Setting{GOGC: Off, MemoryLimit: 100 << 20}, Heap{10, 0, 0}, 0, Goal{MiB: 97, Limited: true}},
		{"small limit keeps 1 MiB headroom", 21, Setting{GOGC: Off, MemoryLimit: 10 << 20}, Heap{1, 0, 0}, 0, Goal{MiB: 9, Limited: true}},
		{"live heap above the limit's share", 21, Setting{GOGC: Off, MemoryLimit: 100 << 20}, Heap{120, 0, 0}, 10, Goal{MiB: 120, Limited: true, Pinned: true}},
		{"non-heap memory above the limit", 21, Setting{GOGC: 100, MemoryLimit: 10 << 20}, Heap{5, 0, 0}, 12, Goal{MiB: 5, Limited: true, Pinned: true}},
		{"go1.18 ignores the limit", 18, Setting{GOGC: 100, MemoryLimit: 10 << 20}, Heap{100, 0, 0}, 0, Goal{MiB: 200}},
	}
	for _, tt := range tests {
		got := HeapGoal(tt.minor, tt.s, tt.h, tt.nonHeap)
		if math.Abs(got.MiB-tt.want.MiB) > 1e-9 && !(math.IsInf(got.MiB, 1) && math.IsInf(tt.want.MiB, 1)) {
			t.Errorf("%s: goal %v MiB, want %v", tt.name, got.MiB, tt.want.MiB)
		}
		got.MiB, tt.want.MiB = 0, 0
		if got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestHeapGoalMatchesLogs checks the goal formula against the goals the
// runtime printed in the recorded runs: from the previous cycle's live heap,
// stacks and globals, HeapGoal must give the printed goal to within the
// rounding of the printed sizes.
func TestHeapGoalMatchesLogs(t *testing.T) {
	for _, r := range loadRuns(t, filepath.Join("testdata", "real")) {
		if r.rep != 1 || r.setting.MemoryLimit > 0 {
			continue
		}
		cs := r.seg.Cycles
		var n, ok int
		for i := 1; i < len(cs); i++ {
			c, p := cs[i], cs[i-1]
			if c.Forced || p.Forced {
				continue
			}
			// The printed live heap is rounded down, so the goal lies
			// between the goals of the lower and upper ends of its MiB.
			lo := HeapGoal(21, r.setting, Heap{float64(p.HeapLive), float64(p.Stacks), float64(p.Globals)}, 0)
			hi := HeapGoal(21, r.setting, Heap{float64(p.HeapLive + 1), float64(p.Stacks + 1), float64(p.Globals + 1)}, 0)
			n++
			if g := float64(c.HeapGoal); g >= math.Floor(lo.MiB)-1 && g <= math.Floor(hi.MiB)+1 {
				ok++
			}
		}
		// A goal can also move during a cycle (the sweep-distance and
		// minimum-runway adjustments of heapGoalInternal), so a few miss.
		if n == 0 || float64(ok) < 0.9*float64(n) {
			name := strings.TrimSuffix(filepath.Base(r.bench), ".log")
			t.Errorf("%s %s: %d of %d printed goals match the formula", name, r.setting, ok, n)
		}
	}
}
