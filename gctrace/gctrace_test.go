package gctrace

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// dump renders a Log as stable text for golden comparison.
func dump(l *Log) string {
	var b strings.Builder
	for _, in := range l.Inputs {
		fmt.Fprintf(&b, "input %s: %d lines, %d bytes, partial=%v\n", in.Name, in.Lines, in.Bytes, in.Partial)
		for k, n := range in.Kinds {
			if n > 0 {
				fmt.Fprintf(&b, "  %s: %d\n", Kind(k), n)
			}
		}
		for _, e := range in.Errors {
			fmt.Fprintf(&b, "  error: %v\n", e)
		}
	}
	for _, s := range l.Segments {
		fmt.Fprintf(&b, "segment %d: %s\n", s.Index, s)
		sm := s.Summary
		f := func(name string, v float64) { fmt.Fprintf(&b, "  %s=%s\n", name, num(v)) }
		fmt.Fprintf(&b, "  cycles=%d forced=%d periodic=%d missing=%d procs=%d scavenges=%d\n", sm.Cycles, sm.Forced, sm.Periodic, sm.Missing, sm.Procs, s.Scavenges)
		f("wall_s", sm.WallS)
		f("gc_per_second", sm.GCPerSecond)
		fmt.Fprintf(&b, "  pauses=%d total=%s p50=%s p95=%s p99=%s max=%s (line %d)\n", sm.Pauses, num(sm.PauseTotalMS), num(sm.P50PauseMS), num(sm.P95PauseMS), num(sm.P99PauseMS), num(sm.MaxPauseMS), sm.MaxPauseLine)
		f("gc_cpu_percent", sm.GCCPUPercent)
		f("idle_cpu_percent", sm.IdleCPUPercent)
		fmt.Fprintf(&b, "  runtime_cpu_percent=%d\n", sm.RuntimeCPUPercent)
		f("assist_percent", sm.AssistPercent)
		f("mark_wall_percent", sm.MarkWallPct)
		f("alloc_mb_per_s", sm.AllocMBPerS)
		fmt.Fprintf(&b, "  live first=%d last=%d min=%d max=%d median(paced)=%s slope=%s r2=%s\n", sm.LiveFirstMB, sm.LiveLastMB, sm.LiveMinMB, sm.LiveMaxMB, num(sm.LiveMedianMB), num(sm.LiveSlope), num(sm.LiveR2))
		fmt.Fprintf(&b, "  peak_heap=%d (line %d) peak_total=%d goal=%d..%d stacks=%d globals=%d\n", sm.PeakHeapMB, sm.PeakHeapLine, sm.PeakTotalMB, sm.MinGoalMB, sm.MaxGoalMB, sm.MaxStacksMB, sm.MaxGlobalsMB)
		fmt.Fprintf(&b, "  overshoot=%d max=%s%% (line %d) at_goal=%d back_to_back=%d min_heap=%d\n", sm.OvershootCycles, num(sm.MaxOvershootPct), sm.MaxOvershootLine, sm.AtGoalCycles, sm.BackToBackCycles, sm.MinHeapCycles)
		if sm.ScanCycles > 0 {
			sc := sm.Scan
			fmt.Fprintf(&b, "  scan cycles=%d greentea=%v objects=%d alone=%d span_sparse=%d span_dense=%d spans=%d+%d dense_share=%s span_share=%s\n",
				sm.ScanCycles, sc.GreenTea, sc.Objects, sc.Alone, sc.SpanSparse, sc.SpanDense, sc.SparseSpans, sc.DenseSpans, num(sm.DenseShare()), num(sm.SpanShare()))
			for i, c := range sm.ScanClasses {
				if i == 6 {
					fmt.Fprintf(&b, "  scan classes: %d more\n", len(sm.ScanClasses)-i)
					break
				}
				fmt.Fprintf(&b, "  scan class %d: objects=%d alone=%d span_sparse=%d span_dense=%d\n", c.Class, c.Objects, c.Alone, c.SpanSparse, c.SpanDense)
			}
		}
		for _, w := range s.Caveats {
			fmt.Fprintf(&b, "  warning: %s\n", w)
		}
	}
	return b.String()
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.4g", v)
}

func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.log")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	// Logs recorded from real Go runtimes of every release, go1.2 to go1.26
	// (testdata/real/README.md says how each was made).
	real, _ := filepath.Glob("testdata/real/*.log")
	files = append(files, real...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			l, err := Parse(bytes.NewReader(data), filepath.Base(f), Options{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			in := l.Inputs[0]
			for _, e := range in.Errors {
				// A process killed while printing leaves a cut last
				// line; anything else is a parser bug.
				if !(e.Truncated && e.Line == in.Lines) {
					t.Errorf("syntax error in a real log: %v", e)
				}
			}
			got := dump(l)
			golden := strings.TrimSuffix(f, ".log") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run with -update to accept):\n%s", golden, diffLines(string(want), got))
			}
		})
	}
}

// diffLines shows the first differing lines, enough to see what changed.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
