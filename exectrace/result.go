package exectrace

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Result is the summary of one execution trace. Times are in milliseconds
// unless the field says otherwise.
type Result struct {
	// Duration is the time from the first to the last event of the trace.
	Duration time.Duration
	// TraceFormat is the minor Go version named in the trace header, such as
	// 23 for "go 1.23 trace"; one format can be written by several releases
	// (see GoVersion).
	TraceFormat int
	// GoVersion names the Go releases that write this trace format, such as
	// "go1.23–go1.24"; the trace does not record the exact release.
	GoVersion string
	// Partial is set when the trace ended early or was corrupt: the figures
	// cover the events read before the error that Analyze returned with
	// them, and PartialReason is that error's message.
	Partial       bool
	PartialReason string
	// Caveats are caveats on the figures, as sentences: what was left out
	// to keep memory bounded (see Options).
	Caveats []string
	// Events is the number of events read; Bytes the bytes of input read.
	Events int64
	Bytes  int64

	Procs      Procs
	GC         GC
	MMU        MMU
	Goroutines Goroutines
	// Groups holds the goroutines grouped by start function, most running
	// plus runnable time first.
	Groups []Group
}

// Procs describes GOMAXPROCS over the trace.
type Procs struct {
	GOMAXPROCS int // the last value seen
	Max        int // the largest value seen
	Min        int // the smallest value seen
}

// GC summarises the garbage collector's activity in the trace.
type GC struct {
	// Cycles counts the GC cycles whose mark phase ended within the trace
	// (a cycle already running when the trace started is included; one still
	// running when it stopped is not). This is the number of lines
	// GODEBUG=gctrace=1 prints over the same span.
	Cycles int
	// MarkWallMS and MarkWallMaxMS are the total and the longest wall-clock
	// span of the concurrent mark phases of the cycles wholly inside the
	// trace, ms.
	MarkWallMS    float64
	MarkWallMaxMS float64

	// STW covers every stop-the-world pause, GCSTW only those the collector
	// made (sweep and mark termination), OtherSTW the rest (runtime.ReadMemStats,
	// goroutine profiles, GOMAXPROCS changes, starting the trace, …).
	STW      PauseStats
	GCSTW    PauseStats
	OtherSTW PauseStats
	// Stops lists the pauses in trace order, up to Options.MaxStops;
	// StopsDropped counts the pauses left out of the list beyond it.
	Stops        []Stop
	StopsDropped int

	CPU GCCPU

	// Heap is the live heap and the heap goal over the trace, downsampled to
	// at most Options.HeapPoints points.
	Heap []HeapSample
	// HeapPeakBytes is the largest live heap seen (heap objects, bytes);
	// HeapGoalMaxBytes the largest heap goal, bytes.
	HeapPeakBytes    uint64
	HeapGoalMaxBytes uint64
}

// Stop is one stop-the-world pause.
type Stop struct {
	AtMS       float64 // start, ms since the trace began
	DurationMS float64 // ms
	// Reason is the runtime's reason as the trace gives it, such as
	// "GC mark termination" or "read mem stats".
	Reason string
	// GC is set for the collector's own pauses.
	GC bool
	// Running counts the goroutines, besides the one stopping the world,
	// that were running when the stop began: each must stop before the
	// world is stopped. StoppingMS is how long the last of them took, ms;
	// the rest of the pause the world stood stopped. Holder names the
	// start function of that last goroutine and HolderID its ID, "" and 0
	// when none was running. A long StoppingMS with a holder means a
	// goroutine that could not be preempted, or whose thread had no CPU;
	// a long pause with nothing to wait for means the runtime's own work
	// inside the stop, or its thread waiting for a CPU.
	Running    int
	StoppingMS float64
	Holder     string
	HolderID   uint64
}

// PauseStats summarises a set of pauses. Percentiles are nearest-rank:
// exact up to a few thousand pauses, within 1% beyond.
type PauseStats struct {
	Count   int
	TotalMS float64
	P50MS   float64
	P95MS   float64
	P99MS   float64
	MaxMS   float64
}

// GCCPU is the processor time the collector used, summed over all Ps.
type GCCPU struct {
	DedicatedMS  float64 // dedicated background mark workers, ms
	FractionalMS float64 // fractional background mark workers, ms
	IdleMS       float64 // idle-priority mark workers (Ps with nothing else to run), ms
	AssistMS     float64 // mark assists while the assisting goroutine ran, ms
	STWMS        float64 // GC stop-the-world wall time × GOMAXPROCS, ms
	SweepMS      float64 // incremental sweeping on Ps, ms
	// Fraction is the share of the processors' time (Duration × GOMAXPROCS)
	// taken from the program by the collector: dedicated, fractional and
	// assist work plus GC pauses. Idle workers and sweeping are left out:
	// the former use time nothing else wanted, and the latter is counted by
	// neither the runtime's GC CPU limiter nor gctrace.
	Fraction float64
	// FractionWithIdle adds idle-priority workers to Fraction.
	FractionWithIdle float64
}

// HeapSample is one point of the heap series.
type HeapSample struct {
	AtMS      float64 // start of the interval the point covers, ms since the trace began
	LiveBytes uint64  // largest heap-objects size in the interval, bytes
	GoalBytes uint64  // largest heap goal in force in the interval, bytes
}

// MMU is the minimum mutator utilization curve: for a window size, the
// lowest share of the Ps available to the program over any window of that
// size in the trace.
type MMU struct {
	Points []MMUPoint
	// At1ms, At10ms and At100ms are the MMU at these windows (1 when the
	// collector never ran).
	At1ms, At10ms, At100ms float64
	// Steps is the number of changes in utilization the curve is built from.
	Steps int
}

// MMUPoint is the MMU at one window size.
type MMUPoint struct {
	// WindowMS is the window, ms. A window longer than the trace gets the
	// utilization of the whole trace.
	WindowMS float64
	// Util is the minimum mutator utilization in [0, 1], as go tool trace
	// computes it. It need not grow with the window: a 5 ms window can hold
	// two short pauses where no 2 ms window holds more than one.
	Util float64
	// Bounded is the lowest Util of this and every longer window of the
	// curve (and of the whole trace): it never decreases with the window, and
	// is the figure to hold a latency objective against.
	Bounded float64
}

// Goroutines counts goroutines over the whole trace.
type Goroutines struct {
	Seen          int     // goroutines that appeared in the trace
	Created       int     // goroutines created during the trace
	CreatedPerSec float64 // Created over Duration
	PeakLive      int     // the most goroutines alive at once
	LiveAtEnd     int     // goroutines alive when the trace stopped
}

// Group aggregates the goroutines that share a start function.
type Group struct {
	// Name is the start function, such as "main.worker" or
	// "net/http.(*conn).serve"; "(unknown)" when the trace never showed a
	// stack for the goroutine.
	Name string
	// Runtime is set for groups of the runtime's own goroutines (GC
	// workers, the sweeper, the scavenger, …).
	Runtime bool
	// Count is the number of goroutines in the group; Created those created
	// during the trace (the others were alive when it started).
	Count         int
	Created       int
	CreatedPerSec float64
	// PeakLive is the most goroutines of the group alive at once.
	PeakLive int

	RunningMS  float64 // executing on a P, ms
	RunnableMS float64 // ready to run but waiting for a P ("sched wait"), ms
	SyscallMS  float64 // in system calls, ms
	Blocked    Blocked // waiting, by reason
	// WorkWaits counts the times the group's goroutines blocked on a
	// channel, in a select or on a sync.Cond. A pool's workers wait so for their next
	// item, many times each; a goroutine started per item runs its item
	// and ends, waiting at most for its result to be taken. It tells the
	// two shapes apart where lifetimes cannot: on a loaded machine a
	// burst of per-item goroutines lives as long as a pool.
	WorkWaits int
	// Waits counts the times the group's goroutines stopped for anything
	// but the GC: a wait of any kind, or a system call. A worker of a
	// pool whose queue never runs dry seldom waits for work, but it waits
	// for the I/O of each of its items; a goroutine started per item
	// waits a few times, for its one item.
	Waits int
	// AssistMS is the time the group's goroutines spent doing mark assists
	// while running (part of RunningMS): their share of the GC tax, ms.
	AssistMS float64

	// RunnableShare is the distribution over the group's goroutines of the
	// share of each one's time in the trace spent runnable (0–1).
	RunnableShare Dist
	// LifetimeMS is the distribution of the time each goroutine spent in
	// the trace, ms.
	LifetimeMS Dist
}

// Blocked splits blocked time by reason, ms.
type Blocked struct {
	ChanMS    float64 // channel send or receive
	SelectMS  float64 // select
	SyncMS    float64 // sync.Mutex, RWMutex, WaitGroup, Cond, …
	NetworkMS float64 // waiting on the network poller
	SleepMS   float64 // time.Sleep, timers
	// GCMS is waiting on the collector: a mark assist waiting for work,
	// waiting for a cycle to end (runtime.GC), parked to have the stack
	// scanned, or waiting on the collector's own locks to start or finish a
	// cycle (reported by the trace as "sync" in runtime.gcStart or
	// runtime.gcMarkDone).
	GCMS    float64
	OtherMS float64 // anything else, such as runtime-internal waits
}

// TotalMS returns the blocked time over all reasons, ms.
func (b Blocked) TotalMS() float64 {
	return b.ChanMS + b.SelectMS + b.SyncMS + b.NetworkMS + b.SleepMS + b.GCMS + b.OtherMS
}

// Dist summarises a distribution over goroutines.
type Dist struct {
	P50 float64
	P95 float64
	P99 float64
	Max float64
}

// Group returns the group with the given start function, or nil.
func (r *Result) Group(name string) *Group {
	for i := range r.Groups {
		if r.Groups[i].Name == name {
			return &r.Groups[i]
		}
	}
	return nil
}

// ErrNoGroup is the error of Sized for a group the trace does not have.
var ErrNoGroup = errors.New("no goroutine group")

// Sized returns the group called name, or without a name the busiest group
// of the program's goroutines (the most time running, runnable or in
// system calls): the pool a worker count is meant for. The error wraps
// ErrNoGroup, naming the groups there are, when name is not among them.
func (r *Result) Sized(name string) (*Group, error) {
	if name != "" {
		if g := r.Group(name); g != nil {
			return g, nil
		}
		var names []string
		for _, g := range r.UserGroups() {
			names = append(names, g.Name)
		}
		return nil, fmt.Errorf("%w %q; groups: %s", ErrNoGroup, name, strings.Join(names, ", "))
	}
	var g *Group
	busy := func(x *Group) float64 { return x.RunningMS + x.RunnableMS + x.SyscallMS }
	for i := range r.Groups {
		if x := &r.Groups[i]; !x.Runtime && (g == nil || busy(x) > busy(g)) {
			g = x
		}
	}
	if g == nil {
		return nil, errors.New("no goroutines of the program in the trace")
	}
	return g, nil
}

// At returns the MMU point with the given window, if the curve has one.
func (m *MMU) At(window time.Duration) (MMUPoint, bool) {
	ms := float64(window) / 1e6
	for _, p := range m.Points {
		if p.WindowMS == ms {
			return p, true
		}
	}
	return MMUPoint{}, false
}
