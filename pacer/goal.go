package pacer

import (
	"fmt"
	"math"
)

// Off is the GOGC value that turns proportional collection off (GOGC=off).
const Off = -1

// Setting is a GC configuration: GOGC and GOMEMLIMIT.
type Setting struct {
	GOGC        int   // percent; Off (-1) for GOGC=off
	MemoryLimit int64 // GOMEMLIMIT, bytes; 0 for no limit
}

// String returns the setting as environment variables, such as
// "GOGC=200 GOMEMLIMIT=1800MiB".
func (s Setting) String() string {
	g := "off"
	if s.GOGC >= 0 {
		g = fmt.Sprint(s.GOGC)
	}
	if s.MemoryLimit <= 0 {
		return "GOGC=" + g
	}
	return "GOGC=" + g + " GOMEMLIMIT=" + GOMEMLIMIT(s.MemoryLimit)
}

// Values the runtime's pacer uses, from runtime/mgcpacer.go (Go 1.26).
const (
	// defaultHeapMinimum: the heap goal is never below 4 MiB × GOGC/100
	// (heapMinimum, set by setGCPercent).
	heapMinimumMiB = 4.0
	// memoryLimitHeapGoalHeadroomPercent and memoryLimitMinHeapGoalHeadroom:
	// memoryLimitHeapGoal keeps 3% (at least 1 MiB) of the limit's heap share
	// free to absorb pacing errors.
	limitHeadroomPercent = 3.0
	limitMinHeadroomMiB  = 1.0
	// minTriggerRatioNum/triggerRatioDen: gcControllerState.trigger never
	// starts a cycle before the heap has grown by 45/64 (about 70%) of the
	// runway from the live heap to the goal, however early its cons/mark
	// estimate asks for.
	minTriggerRatio = 45.0 / 64
	// maxTriggerRatioNum/triggerRatioDen: nor later than 61/64 of the runway,
	// or the goal less defaultHeapMinimum (4 MiB) when that is later.
	maxTriggerRatio = 61.0 / 64
)

// Heap is the state the pacer computes the next goal from, in MiB: the heap
// marked live by the last cycle and the scannable stacks and globals.
type Heap struct {
	Live, Stacks, Globals float64 // MiB
}

// Goal is a heap goal and what set it.
type Goal struct {
	MiB     float64 // the goal, MiB; +Inf when nothing triggers a GC
	Minimum bool    // the minimum heap (4 MiB × GOGC/100) set it
	Limited bool    // the memory limit set it (lower than the GOGC goal)
	Pinned  bool    // the memory limit left no runway: the goal is the live heap
}

// HeapGoal returns the heap goal the runtime of Go 1.minor computes for h
// under setting s. nonHeapMiB is the memory that counts against the limit
// but holds no heap objects (stacks, runtime metadata, free space in
// partly used spans); it only matters with a memory limit.
//
// From Go 1.18 (gcControllerState.commit in runtime/mgcpacer.go):
//
//	goal = live + (live + stacks + globals) × GOGC/100
//
// and before it goal = live × (1 + GOGC/100). The goal is at least
// heapMinimum = 4 MiB × GOGC/100. From Go 1.19 a memory limit caps it
// (heapGoalInternal takes the smaller of the two; memoryLimitHeapGoal):
//
//	limitGoal = limit − nonHeap;  limitGoal −= max(3% × limitGoal, 1 MiB)
//
// and never below the live heap. GOGC=off leaves only the limit's goal,
// or no goal at all.
func HeapGoal(minor int, s Setting, h Heap, nonHeapMiB float64) Goal {
	g := Goal{MiB: math.Inf(1)}
	if s.GOGC >= 0 {
		pct := float64(s.GOGC) / 100
		if minor >= 18 || minor == 0 {
			g.MiB = h.Live + (h.Live+h.Stacks+h.Globals)*pct
		} else {
			g.MiB = h.Live * (1 + pct)
		}
		if min := heapMinimumMiB * pct; g.MiB < min {
			g.MiB, g.Minimum = min, true
		}
	}
	if s.MemoryLimit > 0 && (minor >= 19 || minor == 0) {
		lg := limitHeapGoal(float64(s.MemoryLimit)/(1<<20), nonHeapMiB, h.Live)
		if lg.MiB < g.MiB {
			g = lg
		}
	}
	return g
}

// limitHeapGoal is memoryLimitHeapGoal in MiB.
func limitHeapGoal(limitMiB, nonHeapMiB, liveMiB float64) Goal {
	g := Goal{Limited: true}
	share := limitMiB - nonHeapMiB
	if share <= 0 {
		// Non-heap memory alone exceeds the limit: the runtime sets the
		// goal to the live heap and lets the CPU limiter take over.
		return Goal{MiB: liveMiB, Limited: true, Pinned: true}
	}
	headroom := max(share*limitHeadroomPercent/100, limitMinHeadroomMiB)
	if share-headroom < headroom {
		share = headroom
	} else {
		share -= headroom
	}
	g.MiB = share
	if g.MiB <= liveMiB {
		g.MiB, g.Pinned = liveMiB, true
	}
	return g
}
