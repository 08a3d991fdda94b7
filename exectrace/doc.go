// Package exectrace summarises a runtime execution trace (runtime/trace,
// `go test -trace`, /debug/pprof/trace) for diagnosing garbage collection
// costs: GC cycles, stop-the-world pauses and their reasons, the CPU the
// collector takes (background workers, mark assists, pauses), the live heap
// against its goal, the minimum mutator utilization (MMU) curve, and how the
// program's goroutines spend their time, grouped by start function.
//
// [Analyze] reads the trace once, as a stream, with the runtime team's
// reader (golang.org/x/exp/trace). Only traces written by Go 1.22 and later
// are understood: older ones use a different format that can only be parsed
// by loading the whole file, and are rejected with a [*VersionError].
//
// # Memory
//
// Memory does not grow with the trace's length except for what the results
// are made of:
//
//   - state for each goroutine that is alive at the current point of the
//     trace (a few hundred bytes each); a goroutine's figures are folded into
//     its group when it exits;
//   - one aggregate per group (start function), with fixed-size histograms;
//   - the mutator utilization function, needed to compute the MMU for any
//     window afterwards: a step (12 bytes) each time the number of Ps doing
//     GC work changes, which only happens while the collector runs — a
//     program that never collects stores nothing;
//   - one record per stop-the-world pause (about 40 bytes), up to
//     [Options.MaxStops]; pause statistics cover every pause either way;
//   - the heap series, downsampled to at most [Options.HeapPoints] points.
//
// The reader itself holds one generation of the trace (about a second of
// execution) at a time.
//
// Each of these has a bound in [Options], so that a hostile or enormous
// trace cannot exhaust memory: the goroutines followed at once
// (MaxGoroutines), the groups (MaxGroups, beyond which start functions
// share the group [OtherGroups]), the utilization steps (MaxUtilSteps),
// the pauses listed (MaxStops) and the heap points (HeapPoints).
// [Result.Caveats] says which bound was reached and what it left out, and
// a trace that ends early or breaks part-way gives a result with
// [Result.Partial] and [Result.PartialReason] set.
//
// # Definitions
//
// Goroutine time is split as go tool trace's goroutine analysis splits it:
// running (executing on a P), runnable (ready but waiting for a P: the
// scheduling delay, "sched wait"), blocked (waiting, by reason) and in a
// system call. Goroutines are grouped by their start function: the outermost
// frame of the goroutine's stack, as go tool trace names them.
//
// Mutator utilization follows go tool trace's default "system" view: at any
// instant it is the share of GOMAXPROCS Ps running program code. A P counts
// as doing GC work while it runs a dedicated or fractional mark worker, or a
// goroutine inside a mark assist; a stop-the-world for the collector counts
// as zero utilization on every P. Idle-priority mark workers only use Ps
// that had nothing else to run, and sweeping is excluded, as in go tool trace
// by default.
package exectrace
