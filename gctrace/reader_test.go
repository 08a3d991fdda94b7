package gctrace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReaderKinds(t *testing.T) {
	tests := []struct {
		line    string
		kind    Kind
		process string
	}{
		{"gc 1 @0.059s 0%: 0.11+1.3+0.085 ms clock, 0.22+0.16/0.55/0+0.17 ms cpu, 3->3->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P", KindCycle, ""},
		{"gc 7 @0.5s 1%: 0.1+2+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 5->5->1 MB, 8 MB goal, 2 P (forced)", KindCycle, ""},
		{"gc #3 @0.756s 59%: 0+88+12+19+97 ms clock, 0+88+0+0/19/0+97 ms cpu, 4->6->4 MB, 5 MB goal, 1 P", KindCycle, ""},
		{"gc15(8): 5416+53+14938+239 us, 40 -> 42 MB, 416228 (1544624-1128396) objects, 5777 goroutines, 10790/8093/0 sweeps, 29(1497) handoff, 56(15163) steal, 264/70/222 yields", KindCycle, ""},
		{"Sep 01 18:36:54 etcd-wrapper[15450]: gc 112 @1782.571s 0%: 0.023+36+17 ms clock, 0.047+4.4/23/11+34 ms cpu, 226->229->119 MB, 232 MB goal, 2 P", KindCycle, "etcd-wrapper[15450]"},
		{"Feb 26 12:52:23.767 gc 93 @3074.095s 0%: 0.074+32+0.036 ms clock, 0.59+0.37/64/113+0.29 ms cpu, 269->274->204 MB, 276 MB goal, 8 P", KindCycle, ""},
		{"api_1  | gc 4 @1.0s 2%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB goal, 2 P", KindCycle, "api_1"},
		{"gc 2 @0.1s 3% (checking for goroutine leaks): 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P", KindCycle, ""},
		{"GC forced", KindForced, ""},
		{"scvg1: inuse: 36, idle: 108, sys: 145, released: 0, consumed: 145 (MB)", KindScavenge, ""},
		{"scvg2: 15 MB released", KindScavenge, ""},
		{"scvg: 8 KB released", KindScavenge, ""},
		{"scav 0 KiB work (bg), 376 KiB work (eager), 1204 KiB now, 99% util (forced)", KindScavenge, ""},
		{"pacer: assist ratio=+5.194823e+000 (scan 210 MB in 790->810 MB) workers=6++0.000000e+000", KindPacer, ""},
		{"scan: total 2455+1208+12578=16241 objs, 221+251=472 spans", KindScan, ""},
		{"scan: class 48B 3+6+0=9 objs, 2+0=2 spans", KindScan, ""},
		{"scan: class L 15+0+0=15 objs, 0+0=0 spans", KindScan, ""},
		{"scan: total 16242 objs", KindScan, ""},
		{"app[7]: scan: class 16B 1118 objs", KindScan, "app[7]"},
		{"scan: total 1+2+3=7 objs, 1+1=2 spans", KindError, ""},
		{"scan: the queue for new jobs", KindText, ""},
		{"rescan: total 5 objs", KindText, ""},
		{"# runtime", KindHeader, ""},
		{"", KindBlank, ""},
		{"   \t", KindBlank, ""},
		{"// from here the client is disconnect", KindText, ""},
		{"listening on :8080, gc 5 items", KindText, ""},
		{"logc 1 @0.1s", KindText, ""},
		{"gc 5 @1.2s 3%: garbage", KindError, ""},
	}
	for _, tt := range tests {
		r := NewReader(strings.NewReader(tt.line+"\n"), "t.log")
		if !r.Scan() {
			t.Fatalf("%q: no record", tt.line)
		}
		rec := r.Record()
		if rec.Kind != tt.kind {
			t.Errorf("%q: kind %v, want %v (err %v)", tt.line, rec.Kind, tt.kind, rec.Err)
		}
		if rec.Process != tt.process {
			t.Errorf("%q: process %q, want %q", tt.line, rec.Process, tt.process)
		}
	}
}

func TestCycleFields(t *testing.T) {
	tests := []struct {
		line string
		want Cycle
	}{
		{
			"gc 430 @1724.778s 18%: 0.079+2166+0.033 ms clock, 0.23+860/1642/1606+0.10 ms cpu, 2080->2276->2084 MB, 2080 MB goal, 48 MB stacks, 0 MB globals, 3 P",
			Cycle{Line: 1, Num: 430, Format: FormatGo118, HasAt: true, At: 1724.778, Util: 18,
				Clock:     Phases{SweepTerm: 0.079, Mark: 2166, MarkTerm: 0.033},
				CPU:       CPUTimes{SweepTerm: 0.23, Assist: 860, Background: 1642, Idle: 1606, MarkTerm: 0.10},
				HeapStart: 2080, HeapEnd: 2276, HeapLive: 2084, HeapGoal: 2080, Stacks: 48, Globals: 0, Procs: 3,
				Objects: -1, Goroutines: -1},
		},
		{
			"gc 2 @0.514s 48%: 0+69+88+14+73 ms clock, 0+69+0+0/14/0+73 ms cpu, 4->5->3 MB, 4 MB goal, 1 P",
			Cycle{Line: 1, Num: 2, Format: FormatGo15, HasAt: true, At: 0.514, Util: 48,
				Clock:     Phases{Scan: 69, Sync: 88, Mark: 14, MarkTerm: 73},
				CPU:       CPUTimes{Scan: 69, Background: 14, MarkTerm: 73},
				HeapStart: 4, HeapEnd: 5, HeapLive: 3, HeapGoal: 4, Stacks: -1, Globals: -1, Procs: 1,
				Objects: -1, Goroutines: -1},
		},
		{
			"gc16(8): 27+72+14263+73 us, 22 -> 22 MB, 126964 (1544624-1417660) objects, 5777 goroutines, 10790/7518/0 sweeps, 25(1239) handoff, 50(12187) steal, 262/70/216 yields",
			Cycle{Line: 1, Num: 16, Format: FormatPre15, Util: -1,
				Clock:     Phases{STW: 14.435},
				HeapStart: 22, HeapEnd: 22, HeapLive: -1, HeapGoal: -1, Stacks: -1, Globals: -1, Procs: 8,
				Objects: 126964, Goroutines: 5777},
		},
		{
			"gc1(1): 0+0+0 ms, 0 -> 0 MB 16 -> 18 (19-1) objects, 0(0) handoff, 0(0) steal, 0/0/0 yields",
			Cycle{Line: 1, Num: 1, Format: FormatPre15, Util: -1,
				HeapLive: -1, HeapGoal: -1, Stacks: -1, Globals: -1, Procs: 1, Objects: 18, Goroutines: -1},
		},
	}
	for _, tt := range tests {
		r := NewReader(strings.NewReader(tt.line), "t.log")
		if !r.Scan() || r.Record().Kind != KindCycle {
			t.Fatalf("%q: not a cycle: %+v", tt.line, r.Record().Err)
		}
		got := *r.Record().Cycle
		tt.want.Format = got.Format // checked below, to give a clearer message
		if got.Clock.STW != 0 || tt.want.Clock.STW != 0 {
			if d := got.Clock.STW - tt.want.Clock.STW; d > 1e-9 || d < -1e-9 {
				t.Errorf("%q: STW %v, want %v", tt.line, got.Clock.STW, tt.want.Clock.STW)
			}
			got.Clock.STW = tt.want.Clock.STW
		}
		if got != tt.want {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.line, got, tt.want)
		}
	}
}

func TestPauses(t *testing.T) {
	c := Cycle{Format: FormatGo16, Clock: Phases{SweepTerm: 0.2, Mark: 100, MarkTerm: 3}}
	p, n := c.Pauses()
	if n != 2 || p[0] != 0.2 || p[1] != 3 {
		t.Errorf("Go 1.7 pauses = %v (%d)", p, n)
	}
	old := Cycle{Format: FormatPre15, Clock: Phases{STW: 20}, Procs: 8}
	if p, n := old.Pauses(); n != 1 || p[0] != 20 {
		t.Errorf("pre-1.5 pauses = %v (%d)", p, n)
	}
	if got := old.GCCPU(); got != 160 {
		t.Errorf("pre-1.5 GC CPU = %v, want 160 (20 ms × 8 P)", got)
	}
}

func TestStitchInterleavedLine(t *testing.T) {
	// A program's own stderr output landed inside the runtime's line
	// (seen in gofmt -l output, corpus line 180).
	in := "gc 74 @3.545s 8%: 0.71+13+0.017 ms clock, 1.4+4.6/6.3/0+/src/b.go:1:1: expected 'package', found 'EOF'\n" +
		"0.035 ms cpu, 12->13->7 MB, 14 MB goal, 0 MB stacks, 0 MB globals, 2 P\n" +
		"gc 75 @3.581s 8%: 0.25+3.7+0.18 ms clock, 0.51+0.13/0.79/0+0.36 ms cpu, 13->13->1 MB, 15 MB goal, 0 MB stacks, 0 MB globals, 2 P\n"
	r := NewReader(strings.NewReader(in), "t.log")
	var nums []int
	var lines []int
	for r.Scan() {
		rec := r.Record()
		if rec.Kind != KindCycle {
			t.Fatalf("line %d: kind %v (%v)", rec.Line, rec.Kind, rec.Err)
		}
		nums = append(nums, rec.Cycle.Num)
		lines = append(lines, rec.Line)
		if rec.Cycle.Num == 74 && (rec.Cycle.CPU.MarkTerm != 0.035 || rec.Cycle.HeapLive != 7) {
			t.Errorf("stitched cycle wrong: %+v", rec.Cycle)
		}
	}
	if len(nums) != 2 || nums[0] != 74 || nums[1] != 75 || lines[0] != 1 || lines[1] != 3 {
		t.Errorf("cycles %v at lines %v, want [74 75] at [1 3]", nums, lines)
	}
}

func TestStitchFailsKeepsNextLine(t *testing.T) {
	in := "gc 5 @1.0s 3%: 0.1+oops\nhello\ngc 6 @1.1s 3%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB goal, 2 P\n"
	r := NewReader(strings.NewReader(in), "t.log")
	var kinds []Kind
	for r.Scan() {
		kinds = append(kinds, r.Record().Kind)
	}
	want := []Kind{KindError, KindText, KindCycle}
	if len(kinds) != len(want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("kinds %v, want %v", kinds, want)
		}
	}
}

func TestTruncatedLastLine(t *testing.T) {
	in := "gc 1 @0.1s 1%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB goal, 2 P\n" +
		"gc 2 @0.2s 1%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB go"
	l, err := Parse(strings.NewReader(in), "cut.log", Options{})
	if err != nil {
		t.Fatal(err)
	}
	in0 := l.Inputs[0]
	if !in0.Partial || in0.NErrors != 1 || !in0.Errors[0].Truncated || in0.Errors[0].Line != 2 {
		t.Fatalf("want a truncated error on line 2, got %+v", in0)
	}
	if !strings.HasPrefix(in0.Errors[0].Error(), "cut.log:2:") {
		t.Errorf("error %q does not name file:line", in0.Errors[0])
	}
	if !l.Partial() || l.Cycles() != 1 {
		t.Errorf("partial=%v cycles=%d, want true, 1", l.Partial(), l.Cycles())
	}
}

func TestBadInputs(t *testing.T) {
	tests := []struct {
		name, in, want string
		noCycles       bool
	}{
		{"empty", "", "empty.log: empty input", true},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\x00\x00gc 1 @", "not a text log", false},
		{"text", "hello\nworld\n", "no gctrace cycle lines among 2 lines", true},
		{"only-bad", "gc 1 @x\n", "first bad line: only-bad.log:1:7:", true},
	}
	for _, tt := range tests {
		_, err := Parse(strings.NewReader(tt.in), tt.name+".log", Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want containing %q", tt.name, err, tt.want)
		}
		if tt.noCycles && !errors.Is(err, ErrNoCycles) {
			t.Errorf("%s: err %v does not wrap ErrNoCycles", tt.name, err)
		}
	}
}

func TestLongLineBounded(t *testing.T) {
	in := strings.Repeat("x", 3<<20) + "\ngc 1 @0.1s 1%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB goal, 2 P\n"
	l, err := Parse(strings.NewReader(in), "long.log", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Cycles() != 1 || l.Inputs[0].Lines != 2 {
		t.Errorf("cycles=%d lines=%d, want 1, 2", l.Cycles(), l.Inputs[0].Lines)
	}
}

// TestFastPathAgrees checks that the fast parser and the careful one read
// every real cycle line the same way.
func TestFastPathAgrees(t *testing.T) {
	data := realLogs(t)
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		start, ok := findCycle([]byte(line))
		if !ok {
			continue
		}
		b := []byte(line[start:])
		var fast Cycle
		if !fastModern(b, &fast) {
			continue
		}
		n++
		var slow Cycle
		c := cursor{b: b, i: 2}
		parseModern(&c, &slow)
		if c.err != "" {
			t.Fatalf("careful parser rejects what the fast one accepts: %q: %s", line, c.err)
		}
		if fast != slow {
			t.Fatalf("parsers disagree on %q:\nfast %+v\nslow %+v", line, fast, slow)
		}
	}
	if n < 1000 {
		t.Errorf("only %d lines took the fast path", n)
	}
}

// TestInterleavedProcesses merges the cycle lines of two real runs, one
// line from each in turn, as two processes writing to one terminal do, and
// checks that both come back whole.
func TestInterleavedProcesses(t *testing.T) {
	cycles := func(name string) []string {
		data, err := os.ReadFile(filepath.Join("testdata/real", name))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "gc ") {
				out = append(out, l)
			}
		}
		return out
	}
	a, b := cycles("go1.21-alloc.log"), cycles("go1.26-alloc.log")
	var merged strings.Builder
	for i := 0; i < max(len(a), len(b)); i++ {
		if i < len(a) {
			merged.WriteString(a[i] + "\n")
		}
		if i < len(b) {
			merged.WriteString(b[i] + "\n")
		}
	}
	l, err := Parse(strings.NewReader(merged.String()), "merged.log", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, s := range l.Segments {
		got = append(got, s.Summary.Cycles)
		if s.Summary.Missing != 0 {
			t.Errorf("segment %v skips %d cycle numbers: cycles were mixed up", s, s.Summary.Missing)
		}
	}
	if len(got) != 2 || got[0] != len(a) || got[1] != len(b) {
		t.Errorf("segments with %v cycles, want [%d %d]", got, len(a), len(b))
	}
}

func TestScanFields(t *testing.T) {
	tests := []struct {
		line string
		want Scan
		err  string // the message of a line that does not parse, "" when it does
	}{
		{"scan: total 2455+1208+12578=16241 objs, 221+251=472 spans",
			Scan{Line: 1, ScanCounts: ScanCounts{GreenTea: true, Objects: 16241, Alone: 2455, SpanSparse: 1208, SpanDense: 12578, SparseSpans: 221, DenseSpans: 251}}, ""},
		{"scan: class 480B 1+0+14=15 objs, 0+4=4 spans",
			Scan{Line: 1, Class: 480, ScanCounts: ScanCounts{GreenTea: true, Objects: 15, Alone: 1, SpanDense: 14, DenseSpans: 4}}, ""},
		{"scan: class L 15+0+0=15 objs, 0+0=0 spans",
			Scan{Line: 1, Class: LargeClass, ScanCounts: ScanCounts{GreenTea: true, Objects: 15, Alone: 15}}, ""},
		{"scan: total 16242 objs", Scan{Line: 1, ScanCounts: ScanCounts{Objects: 16242, Alone: 16242}}, ""},
		{"scan: class 16B 1118 objs", Scan{Line: 1, Class: 16, ScanCounts: ScanCounts{Objects: 1118, Alone: 1118}}, ""},
		{"scan: total 1+2+3=7 objs, 1+1=2 spans", Scan{}, "t.log:1:38: counts do not add up to their totals"},
		{"scan: class 0B 5 objs", Scan{}, "t.log:1:14: size class of 0 bytes"},
		{"scan: class 16 5 objs", Scan{}, "t.log:1:15: expected B after the size class"},
		{"scan: total 5 objs extra", Scan{}, "t.log:1:20: unexpected text after the counts"},
		{"scan: total 5+6", Scan{}, "t.log:1:16: expected +"},
	}
	for _, tt := range tests {
		r := NewReader(strings.NewReader(tt.line+"\n"), "t.log")
		if !r.Scan() {
			t.Fatalf("%q: no record", tt.line)
		}
		rec := r.Record()
		if tt.err != "" {
			if rec.Kind != KindError || rec.Err.Error() != tt.err {
				t.Errorf("%q: %v %v, want error %q", tt.line, rec.Kind, rec.Err, tt.err)
			}
			continue
		}
		if rec.Kind != KindScan || *rec.Scan != tt.want {
			t.Errorf("%q: %v %+v, want %+v", tt.line, rec.Kind, rec.Scan, tt.want)
		}
	}
}

// TestScanLinesJoinTheirCycle checks that the scan lines of gctrace=2 go
// to the cycle printed before them, in the cycles kept and the summary,
// and that lines that cannot belong to it (a second total, class lines
// without a total, lines before any cycle) are left out.
func TestScanLinesJoinTheirCycle(t *testing.T) {
	const log = `scan: total 9 objs
gc 1 @0.010s 1%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P
scan: total 10+20+70=100 objs, 4+6=10 spans
scan: class 16B 10+0+70=80 objs, 0+6=6 spans
scan: class L 0+20+0=20 objs, 4+0=4 spans
scan: total 1+1+1=3 objs, 1+1=2 spans
gc 2 @0.020s 1%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P
scan: class 16B 5+0+0=5 objs, 0+0=0 spans
gc 3 @0.030s 1%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P
scan: total 50+0+0=50 objs, 0+0=0 spans
scan: class 16B 50+0+0=50 objs, 0+0=0 spans
`
	l, err := Parse(strings.NewReader(log), "t.log", Options{KeepCycles: true})
	if err != nil {
		t.Fatal(err)
	}
	s := l.Segments[0]
	if got := [3]bool{s.Cycles[0].HasScan, s.Cycles[1].HasScan, s.Cycles[2].HasScan}; got != [3]bool{true, false, true} {
		t.Fatalf("HasScan = %v, want [true false true]", got)
	}
	if c := s.Cycles[0].Scan; c.Objects != 100 || c.SpanDense != 70 {
		t.Errorf("cycle 1 scanned %+v, want 100 objects, 70 dense", c)
	}
	sm := &s.Summary
	want := ScanCounts{GreenTea: true, Objects: 150, Alone: 60, SpanSparse: 20, SpanDense: 70, SparseSpans: 4, DenseSpans: 6}
	if sm.ScanCycles != 2 || sm.Scan != want {
		t.Errorf("summary: %d cycles, %+v; want 2, %+v", sm.ScanCycles, sm.Scan, want)
	}
	wantClasses := []ClassScan{
		{Class: 16, ScanCounts: ScanCounts{GreenTea: true, Objects: 130, Alone: 60, SpanDense: 70, DenseSpans: 6}},
		{Class: LargeClass, ScanCounts: ScanCounts{GreenTea: true, Objects: 20, SpanSparse: 20, SparseSpans: 4}},
	}
	if !slices.Equal(sm.ScanClasses, wantClasses) {
		t.Errorf("classes %+v, want %+v", sm.ScanClasses, wantClasses)
	}
	if got, want := sm.DenseShare(), 70.0/150; got != want {
		t.Errorf("DenseShare = %v, want %v", got, want)
	}
}
