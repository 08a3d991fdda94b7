// Package gctrace reads the output of GODEBUG=gctrace=1 for every Go version
// and turns it into cycles, process segments and per-segment summaries.
//
// The runtime prints one line per GC cycle to standard error. Its shape has
// changed several times:
//
//	Go 1.2        gc1(1): 9+0+0 ms, 0 -> 0 MB 16 -> 18 (19-1) objects, …
//	Go 1.3–1.4    gc15(8): 5416+53+14938+239 us, 40 -> 42 MB, 416228 (…) objects, …
//	Go 1.5 dev    gc #1 @0.240s 37%: 0+37+18+9+43 ms clock, 0+37+0+0/9/0+43 ms cpu, 4->5->2 MB, 4 MB goal, 1 P
//	Go 1.5        gc 1 @0.016s 3%: 0.039+0.30+0+0.93+0.075 ms clock, 0.078+0.30+0+0.021/0.81/0.059+0.15 ms cpu, 4->4->3 MB, 4 MB goal, 2 P
//	Go 1.6–1.17   gc 1 @0.059s 0%: 0.11+1.3+0.085 ms clock, 0.22+0.16/0.55/0+0.17 ms cpu, 3->3->0 MB, 4 MB goal, 2 P
//	Go ≥ 1.18     … 4 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)
//
// Before Go 1.5 the whole collection stopped the world, so the four phase
// times add up to one pause. From Go 1.5 the first and last clock phases
// (sweep termination and mark termination) stop the world and the phases in
// between run concurrently with the program. The CPU fields split the mark
// phase into assist (work done by allocating goroutines), background and idle
// mark time. Heap sizes are printed in MiB (bytes >> 20) and labelled MB.
//
// GODEBUG=gctrace=2 adds "scan:" lines after each cycle (Go 1.26): how many
// objects the mark scanned, and with the Green Tea collector how many of
// them span by span, sparse or dense ([ScanCounts]). A Reader reports them
// as [KindScan] records; Parse adds them to their cycle and to the
// segment's [Summary].
//
// Logs that people paste contain more than cycle lines: scavenger lines
// (scvg, scav), pacer traces (pacer:), the periodic "GC forced" marker,
// "# pkg" headers written by the go command, journald, syslog or container
// prefixes, comments and blank lines, and sometimes a truncated last line.
// A [Reader] classifies every line and never gives up on a bad one: a line
// that looks like a cycle but does not parse becomes a [SyntaxError] with its
// position, and reading goes on.
//
// Logs also arrive carelessly encoded: with a UTF-8 byte order mark, with
// CRLF or classic Mac CR line ends, gzip-compressed, or as the UTF-16 that
// Windows PowerShell's redirection writes. [Parser.Add] reads them all as
// the same text, and refuses binary data (a NUL stream such as /dev/zero,
// an execution trace) from its first bytes. A line longer than 64 KiB is a
// positioned error and is skipped; an input whose line does not end within
// 64 MiB stops with an error, keeping what came before, so that no input
// makes a Reader spin or grow without bound.
//
// One stream often holds several processes: `go build` runs the compiler and
// the linker many times, and every one of them prints its own cycles starting
// again at gc 1, sometimes interleaved with the go command's own cycles.
// [Parse] splits the cycles into [Segment]s, one per process, and computes a
// [Summary] for each in a single pass with bounded memory.
package gctrace
