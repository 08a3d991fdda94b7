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
	// The careless encodings: a byte order mark, old Mac line ends,
	// gzip, UTF-16 as PowerShell writes it, and a NUL stream.
	first := []byte("gc 1 @0.059s 0%: 0.11+1.3+0.085 ms clock, 0.22+0.16/0.55/0+0.17 ms cpu, 3->3->0 MB, 4 MB goal, 2 P\n" +
		"gc 2 @0.1s 3%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n")
	f.Add(append([]byte("\ufeff"), first...))
	f.Add(bytes.ReplaceAll(first, []byte("\n"), []byte("\r")))
	f.Add(bytes.ReplaceAll(first, []byte("\n"), []byte("\r\n")))
	f.Add(gzipped(f, first))
	f.Add(utf16Bytes(string(first), false))
	f.Add(make([]byte, 64))
	f.Add([]byte("gc 5 @1.2s 3%: 0.1+2"))
	f.Add([]byte("gc 74 @3.5s 8%: 0.71+13+0.017 ms clock, 1.4+4.6/6.3/0+/x.go:1:1: oops\n0.035 ms cpu, 12->13->7 MB, 14 MB goal, 2 P\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, _ := Parse(bytes.NewReader(data), "fuzz.log", Options{KeepCycles: true, MaxDecompressed: 1 << 20})
		// A line ends at "\n" or "\r"; decoded inputs can hold more.
		nlines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + 1
		if l.Inputs[0].Encoding != "" {
			nlines = 1 << 20
		}
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
			if len(s.Cycles) > s.Summary.Cycles {
				t.Fatalf("%d cycles kept of %d", len(s.Cycles), s.Summary.Cycles)
			}
			if w := s.CyclesWallS(); w < 0 || w > s.Summary.WallS+1e-9 {
				t.Fatalf("kept cycles span %v s of %v s", w, s.Summary.WallS)
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
