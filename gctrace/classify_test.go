package gctrace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestClassifyLine(t *testing.T) {
	tests := []struct {
		line string
		kind Kind
		num  int
	}{
		{"gc 1 @0.059s 0%: 0.11+1.3+0.085 ms clock, 0.22+0.16/0.55/0+0.17 ms cpu, 3->3->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P", KindCycle, 1},
		{"BenchmarkX-2   100   5 ns/opgc 12 @1.2s 3%: 0.1+2+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 5->5->1 MB, 8 MB goal, 2 P", KindText, 0},
		{"ok:gc 12 @1.2s 3%: 0.1+2+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 5->5->1 MB, 8 MB goal, 2 P", KindCycle, 12},
		{"gc 5 @1.2s 3%: 0.1+BenchmarkX-2   100   5 ns/op", KindError, 0},
		{"gc15(8): 5416+53+14938+239 us, 40 -> 42 MB, 416228 (1544624-1128396) objects, 5777 goroutines, 10790/8093/0 sweeps, 29(1497) handoff, 56(15163) steal, 264/70/222 yields", KindCycle, 15},
		{"GC forced", KindForced, 0},
		{"scvg2: 15 MB released", KindScavenge, 0},
		{"scvg is not a scavenger line", KindText, 0},
		{"scav 0 KiB work (bg), 376 KiB work (eager), 1204 KiB now, 99% util", KindScavenge, 0},
		{"pacer: assist ratio=+5.194823e+000 (scan 210 MB in 790->810 MB) workers=6++0.000000e+000", KindPacer, 0},
		{"scan: total 2455+1208+12578=16241 objs, 221+251=472 spans", KindScan, 0},
		{"scan: class 16B 1118 objs", KindScan, 0},
		{"scan: total 1+2+3=7 objs, 1+1=2 spans", KindError, 0},
		{"scan: the queue for new jobs", KindText, 0},
		{"# example.com/m", KindHeader, 0},
		{" \t", KindBlank, 0},
		{"--- FAIL: TestX (0.00s)", KindText, 0},
	}
	for _, tt := range tests {
		var cy Cycle
		k := ClassifyLine([]byte(tt.line), &cy)
		if k != tt.kind || k == KindCycle && cy.Num != tt.num {
			t.Errorf("ClassifyLine(%q) = %v, gc %d; want %v, gc %d", tt.line, k, cy.Num, tt.kind, tt.num)
		}
		if got := ClassifyLine([]byte(tt.line), nil); got != k {
			t.Errorf("ClassifyLine(%q, nil) = %v, want %v", tt.line, got, k)
		}
	}
}

// TestClassifyLineAgreesWithReader checks that a line classified on its
// own gets the kind a Reader gives it in the logs of the corpus, so that
// the two cannot drift apart. The one difference is by design: a cycle line
// cut in two by other output is an error on its own, and a cycle to a
// Reader that stitches the next line back on.
func TestClassifyLineAgreesWithReader(t *testing.T) {
	files, err := filepath.Glob("testdata/*/*.log")
	if err != nil || len(files) == 0 {
		t.Fatalf("no logs: %v", err)
	}
	stitched := 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(data, []byte("\n"))
		type rec struct {
			line int
			kind Kind
			num  int
		}
		var recs []rec
		r := NewReader(bytes.NewReader(data), name)
		for r.Scan() {
			x := r.Record()
			recs = append(recs, rec{x.Line, x.Kind, 0})
			if x.Kind == KindCycle {
				recs[len(recs)-1].num = x.Cycle.Num
			}
		}
		for i, x := range recs {
			line := bytes.TrimSuffix(lines[x.line-1], []byte("\r"))
			var cy Cycle
			got := ClassifyLine(line, &cy)
			cut := x.kind == KindCycle && (i+1 == len(recs) || recs[i+1].line == x.line+2)
			switch {
			case cut && got == KindError:
				stitched++
			case got != x.kind:
				t.Errorf("%s:%d: ClassifyLine = %v, Reader = %v", name, x.line, got, x.kind)
			case got == KindCycle && cy.Num != x.num:
				t.Errorf("%s:%d: ClassifyLine reads gc %d, Reader gc %d", name, x.line, cy.Num, x.num)
			}
		}
	}
	if stitched == 0 {
		t.Error("no cut cycle line in the corpus: the stitched case went untested")
	}
}
