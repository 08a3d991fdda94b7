// Package pacer models a program's garbage collector from its own gctrace
// log and predicts what other GOGC and GOMEMLIMIT settings would do.
//
// Fit reads the cycles of one process (a gctrace.Segment) and measures what
// the runtime's pacer works from: the live heap and how it changes as the
// program allocates, the scannable stacks and globals, how much the program
// allocates per cycle, how much CPU a cycle costs as a function of the heap
// it scans, and how much of the runway the heap goal allowed the program
// actually used before each cycle started and before it ended. Model.Predict
// replays the same work (the same total allocation and the same live-heap
// trajectory) under another setting, with the heap goal computed as the
// runtime computes it and the trigger bounded as the runtime bounds it
// (runtime/mgcpacer.go), and reports the GC cycles, GC CPU, peak heap, an
// RSS estimate and the risk of a GC death spiral near a memory limit, each
// with its uncertainty and caveats. Fit ends by replaying the setting the
// log was recorded with: a model that does not give back its own log
// (Model.Reproduces) withholds the ranges it cannot give and says why, and
// a fit too weak for a narrow GC CPU range widens it and says why
// (Model.GCCPURangeWide). GCCPUFraction is the
// one definition of GC CPU that predictions and measurements share.
// Recommend chooses a setting for a memory budget.
//
// The accuracy of the cycle-count prediction is measured on real benchmark
// runs of the standard library stored in testdata/real; docs/pacer.md has
// the equations and docs/accuracy.md the measured errors.
package pacer
