package gctrace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes the parser panic, hang or report
// positions outside the input, and that every cycle it accepts is sane.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/corpus/*.log")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		// Seed with the first lines of each real log.
		lines := bytes.SplitAfter(data, []byte("\n"))
		f.Add(bytes.Join(lines[:min(len(lines), 6)], nil))
	}
	f.Add([]byte("gc 5 @1.2s 3%: 0.1+2"))
	f.Add([]byte("gc 74 @3.5s 8%: 0.71+13+0.017 ms clock, 1.4+4.6/6.3/0+/x.go:1:1: oops\n0.035 ms cpu, 12->13->7 MB, 14 MB goal, 2 P\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, _ := Parse(bytes.NewReader(data), "fuzz.log", Options{})
		nlines := bytes.Count(data, []byte("\n")) + 1
		for _, in := range l.Inputs {
			if in.Lines > nlines {
				t.Fatalf("%d lines counted in %d", in.Lines, nlines)
			}
			for _, e := range in.Errors {
				if e.Line < 1 || e.Line > nlines {
					t.Fatalf("error line %d outside 1..%d", e.Line, nlines)
				}
				if !strings.HasPrefix(e.Error(), "fuzz.log:") {
					t.Fatalf("error %q does not name the input", e)
				}
			}
		}
		total := 0
		for _, s := range l.Segments {
			total += s.Summary.Cycles
			for _, c := range s.Cycles {
				if c.Line < 1 || c.Line > nlines {
					t.Fatalf("cycle line %d outside 1..%d", c.Line, nlines)
				}
				if c.Procs < 0 || c.HeapStart < 0 || c.HeapEnd < 0 {
					t.Fatalf("negative field in %+v", c)
				}
			}
			if s.Summary.Pauses > 2*s.Summary.Cycles {
				t.Fatalf("%d pauses for %d cycles", s.Summary.Pauses, s.Summary.Cycles)
			}
		}
		if total > nlines {
			t.Fatalf("%d cycles from %d lines", total, nlines)
		}
	})
}
