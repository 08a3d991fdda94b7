package gctrace

import "fmt"

// Format identifies the shape of a cycle line, and so the Go versions that
// can have printed it.
type Format uint8

// The cycle line formats, oldest first.
const (
	FormatUnknown Format = iota
	FormatPre15          // gcN(P): a+b+c+d us, X -> Y MB, … (Go 1.4 and older)
	FormatGo15Dev        // gc #N @… with five clock phases (Go 1.5 development)
	FormatGo15           // gc N @… with five clock phases (Go 1.5)
	FormatGo16           // gc N @… with three clock phases (Go 1.6 to 1.17)
	FormatGo118          // three clock phases plus MB stacks, MB globals (Go 1.18+)
)

var formatNames = [...]string{
	FormatUnknown: "unknown",
	FormatPre15:   "go1.4-",
	FormatGo15Dev: "go1.5dev",
	FormatGo15:    "go1.5",
	FormatGo16:    "go1.6-1.17",
	FormatGo118:   "go1.18+",
}

// String returns a short name of the Go versions that print the format, such
// as "go1.6-1.17".
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", f)
}

// MinorRange reports the range of Go 1.x minor versions that print lines of
// this format; max is 0 when the range is open.
func (f Format) MinorRange() (min, max int) {
	switch f {
	case FormatPre15:
		return 0, 4
	case FormatGo15Dev:
		return 5, 5
	case FormatGo15:
		return 5, 5
	case FormatGo16:
		return 6, 17
	case FormatGo118:
		return 18, 0
	}
	return 0, 0
}

// Phases holds the wall-clock time of each phase of a cycle, in milliseconds.
type Phases struct {
	SweepTerm float64 // stop-the-world sweep termination (Go 1.5+)
	Scan      float64 // concurrent root scan (Go 1.5 only)
	Sync      float64 // installing the write barrier on every P (Go 1.5 only)
	Mark      float64 // concurrent mark (mark and scan from Go 1.6)
	MarkTerm  float64 // stop-the-world mark termination (Go 1.5+)
	STW       float64 // the whole stop-the-world collection (Go ≤ 1.4 only)
}

// CPUTimes holds the CPU time spent in each phase of a cycle, in milliseconds,
// summed over all Ps.
type CPUTimes struct {
	SweepTerm  float64 // sweep termination, while the world is stopped
	Scan       float64 // concurrent root scan (Go 1.5 only)
	Sync       float64 // installing the write barrier (Go 1.5 only)
	Assist     float64 // mark work done by goroutines that allocate (mark assist)
	Background float64 // dedicated and fractional background mark workers
	Idle       float64 // mark work done by otherwise idle Ps
	MarkTerm   float64 // mark termination, while the world is stopped
}

// Cycle is one garbage collection as reported by one gctrace line.
//
// Heap sizes are in MiB as printed: the runtime prints bytes>>20, so every
// size is rounded down to a whole MiB. Fields a format does not print are -1
// (sizes, counts) or zero (times); see Format.
type Cycle struct {
	Line    int    // 1-based line number in the input
	Num     int    // cycle number, counted by the runtime from process start
	Format  Format // shape of the line
	Process string // process tag from a log prefix, such as "etcd[15450]"; "" when none

	HasAt bool    // whether the line gives the time since process start (Go 1.5+)
	At    float64 // seconds since process start at the start of the cycle

	// Util is the runtime's own figure of the share of CPU spent in GC since
	// the process started, in percent (cumulative, not this cycle's); -1 when
	// the format has none.
	Util int

	Clock Phases   // wall-clock time per phase, ms
	CPU   CPUTimes // CPU time per phase, ms

	// HeapStart and HeapEnd are the heap when the cycle started and when
	// marking ended. Before Go 1.5 they are the two figures of "A -> B MB":
	// in Go 1.2 the heap before and after the collection; in Go 1.3 and 1.4
	// an estimate of the live heap after the previous collection and the
	// heap when this one started.
	HeapStart int64 // MiB
	HeapEnd   int64 // MiB
	HeapLive  int64 // heap marked live by this cycle, MiB (-1 before Go 1.5)
	HeapGoal  int64 // heap goal of this cycle, MiB (-1 before Go 1.5)
	Stacks    int64 // scannable goroutine stack size, MiB (Go 1.18+, else -1)
	Globals   int64 // scannable global data size, MiB (Go 1.18+, else -1)
	Procs     int   // GOMAXPROCS (P count) used by the cycle

	Objects    int64 // live objects after the cycle (Go ≤ 1.4, else -1)
	Goroutines int64 // goroutines (Go ≤ 1.4, else -1)

	// Forced reports a cycle the program asked for: runtime.GC or
	// debug.FreeOSMemory, printed as "(forced)". Periodic cycles started by
	// the runtime after two minutes without a GC are not Forced but Periodic.
	Forced bool
	// Periodic reports a cycle preceded by the runtime's "GC forced" line:
	// the runtime found no GC in the last two minutes and started one.
	Periodic bool

	// HasScan reports that GODEBUG=gctrace=2 printed a "scan: total" line
	// after the cycle line (Go 1.26), and Scan holds its counts: what the
	// cycle's mark scanned, and how.
	HasScan bool
	Scan    ScanCounts
}

// Pauses returns the cycle's stop-the-world pauses, in milliseconds, and how
// many there are (two from Go 1.5, one before).
func (c *Cycle) Pauses() (p [2]float64, n int) {
	if c.Format == FormatPre15 {
		return [2]float64{c.Clock.STW}, 1
	}
	return [2]float64{c.Clock.SweepTerm, c.Clock.MarkTerm}, 2
}

// PauseTotal returns the total stop-the-world time of the cycle, in ms.
func (c *Cycle) PauseTotal() float64 {
	return c.Clock.STW + c.Clock.SweepTerm + c.Clock.MarkTerm
}

// Wall returns the wall-clock duration of the cycle from its first to its
// last phase, in ms.
func (c *Cycle) Wall() float64 {
	k := c.Clock
	return k.STW + k.SweepTerm + k.Scan + k.Sync + k.Mark + k.MarkTerm
}

// ConcurrentWall returns the wall-clock time the cycle spent in phases that
// run concurrently with the program (mainly marking), in ms.
func (c *Cycle) ConcurrentWall() float64 {
	return c.Clock.Scan + c.Clock.Sync + c.Clock.Mark
}

// GCCPU returns the CPU time the cycle took from the program, in ms: every
// phase except idle marking, which only uses Ps that had nothing to run.
// It matches what the runtime counts in its own GC CPU percentage.
func (c *Cycle) GCCPU() float64 {
	t := c.CPU
	if c.Format == FormatPre15 {
		// The whole collection stopped every P.
		return c.Clock.STW * float64(max(c.Procs, 1))
	}
	return t.SweepTerm + t.Scan + t.Sync + t.Assist + t.Background + t.MarkTerm
}

// MarkCPU returns the CPU time spent marking (assist, background and idle),
// in ms.
func (c *Cycle) MarkCPU() float64 {
	return c.CPU.Assist + c.CPU.Background + c.CPU.Idle
}

// Scavenge is a scavenger line: the runtime returning memory to the OS.
//
// Go 1.4 to 1.12 print "scvgN: inuse: A, idle: B, sys: C, released: D,
// consumed: E (MB)" and "scvgN: N MB released"; Go 1.13 to 1.18 print
// "scvg: N KB released" and the same inuse line; Go 1.19 and later print
// "scav N KiB work (bg), …, N KiB now, N% util". Fields a line does not
// carry are -1.
type Scavenge struct {
	Line     int
	Released int64 // bytes released by this scavenge (or released so far in "now" lines), -1 if absent
	InUse    int64 // bytes in use, -1 if absent
	Idle     int64 // bytes idle, -1 if absent
	Sys      int64 // bytes obtained from the OS, -1 if absent
	Consumed int64 // bytes obtained from the OS and not released, -1 if absent
	Util     int   // percent of retained memory in use (Go 1.19+), -1 if absent
}

// SyntaxError describes a line that looks like a gctrace cycle line but could
// not be parsed.
type SyntaxError struct {
	FileName  string
	Line      int
	Col       int // 1-based byte column, 0 when unknown
	Msg       string
	Truncated bool // the line ended early: the last line of a cut input
}

func (e *SyntaxError) Error() string {
	pos := fmt.Sprintf("%s:%d", e.FileName, e.Line)
	if e.Col > 0 {
		pos += fmt.Sprintf(":%d", e.Col)
	}
	return pos + ": " + e.Msg
}

// ScanCounts is what a cycle's mark scanned, as a "scan:" line of
// GODEBUG=gctrace=2 reports it (Go 1.26): heap objects, and how they were
// scanned. The Green Tea collector (the default from Go 1.26,
// GOEXPERIMENT=greenteagc) scans small objects a span (an 8 KiB page of
// objects of one size) at a time, and splits the count three ways:
//
//	scan: total 2455+1208+12578=16241 objs, 221+251=472 spans
//
// objects scanned one at a time (8-byte objects, objects over 512 bytes,
// large objects, and a span's only marked object), objects
// scanned span by span where few of the span's objects were marked
// (sparse), and objects scanned span by span with the vector kernel where
// many were (dense: an eighth of the span or more, on amd64 with
// AVX-512); then the spans scanned sparse and dense. Without Green Tea
// (GOEXPERIMENT=nogreenteagc) every object is scanned on its own and the
// line has one count, "scan: total 16242 objs".
type ScanCounts struct {
	// GreenTea reports that the line has Green Tea's split counts.
	GreenTea bool
	// Objects is every object scanned.
	Objects int64
	// Alone counts the objects scanned one at a time: all of them
	// without Green Tea.
	Alone int64
	// SpanSparse and SpanDense count the objects scanned span by span,
	// sparse and dense (Green Tea only).
	SpanSparse, SpanDense int64
	// SparseSpans and DenseSpans count the spans scanned each way (Green
	// Tea only).
	SparseSpans, DenseSpans int64
}

// Add adds o's counts to s.
func (s *ScanCounts) Add(o *ScanCounts) {
	s.GreenTea = s.GreenTea || o.GreenTea
	s.Objects += o.Objects
	s.Alone += o.Alone
	s.SpanSparse += o.SpanSparse
	s.SpanDense += o.SpanDense
	s.SparseSpans += o.SparseSpans
	s.DenseSpans += o.DenseSpans
}

// Scan is one "scan:" line of GODEBUG=gctrace=2, printed after the cycle
// line it belongs to: the cycle's total ("scan: total …"), then one line
// per size class that had objects scanned ("scan: class 48B …", "scan:
// class L …" for large objects).
type Scan struct {
	Line int
	// Class is the size class's object size in bytes, LargeClass for
	// large objects, and 0 on the total line.
	Class int64
	ScanCounts
}

// LargeClass is Scan.Class for objects too large for a size class ("class
// L"), each in a span of its own.
const LargeClass = -1
