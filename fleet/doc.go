// Package fleet judges the garbage collectors of many Go services at once
// from the metrics a Prometheus server (or Thanos, Mimir, VictoriaMetrics
// behind the same HTTP API) already holds for them.
//
// Analyze sends a fixed set of aggregated PromQL queries (Queries), each
// returning every instance at once, so that the number of queries does not
// grow with the number of instances. From their answers it builds, per
// instance and per job, what gcdoctor's single-process report gives for one
// gctrace: GC CPU in cores and as a share of the process's CPU, GC cycles
// per second, pause p99 and maximum, allocation rate, live heap against
// its goal and GOMEMLIMIT, RSS against the heap, and the GOGC, GOMEMLIMIT
// and GOMAXPROCS in force. It judges them with the single-process rules'
// IDs and thresholds where the meaning is the same (gc-cpu-high,
// memlimit-death-spiral, live-heap-growth, rss-over-heap, stw-long,
// alloc-churn, gc-min-heap), each finding's evidence carrying its PromQL
// and time range, and it says per instance which series were missing and
// what that left estimated or unjudged.
//
// It then prices the GC: the fleet's GC cores ranked by job and instance,
// and what a GOGC/GOMEMLIMIT setting per job would save, from the pacer's
// heap-goal equations (pacer.HeapGoal) applied to each instance's live
// heap, allocation rate and cost per cycle (see Tune).
//
// Drill runs the single-service diagnosis on the worst instances, found
// through /api/v1/targets, with bounded concurrency and a timeout each.
//
// The package only measures and judges; package report formats a Report.
package fleet
