// Package live reads the evidence a running Go service already serves about
// its garbage collector, and turns two snapshots of it into the figures a
// gctrace log gives: cycles and cycles per second, the GC's share of the
// CPU, pause percentiles, the allocation rate, the live heap and its goal,
// GOGC, GOMEMLIMIT and GOMAXPROCS in force, and RSS.
//
// A Snapshot holds what each source answered at one moment:
//
//   - MemStats from /debug/pprof/heap?debug=1 (net/http/pprof): NumGC, the
//     ring of the last 256 pauses, GCCPUFraction, HeapAlloc, NextGC;
//   - Prometheus text from /metrics (client_golang): go_gc_duration_seconds,
//     go_memstats_*, go_gc_gogc_percent, go_gc_gomemlimit_bytes,
//     go_sched_gomaxprocs_threads, process_resident_memory_bytes, and the
//     runtime/metrics series when the client exports them;
//   - expvar's /debug/vars, whose memstats are MemStats again;
//   - gcdoctor's agent (package agent) at /debug/gcdoctor/metrics: every
//     runtime/metrics sample, with the GC's exact CPU by class.
//
// A Sampler reads one Snapshot from a service's base URL; Between turns two
// of them (and any taken in between, for the pauses) into KPIs, each
// figure from the best source both snapshots have, and says which figures
// are estimates. Snapshots are built from the bytes each source served
// (Snapshot.Add), so that what was read from a service can be stored and
// read again later.
package live
