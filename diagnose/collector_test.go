package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// TestCollectorNote holds gc-cpu-high's word on the collector to real Go
// 1.26 gctrace=2 logs of both collectors (gctrace/testdata/real), and to
// Go versions without scan lines.
func TestCollectorNote(t *testing.T) {
	read := func(name string) *gctrace.Segment {
		f, err := os.Open(filepath.Join("..", "gctrace", "testdata", "real", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		l, err := gctrace.Parse(f, name, gctrace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return l.Busiest()
	}
	plain := parseFile(t, "go1.26-alloc.log").Busiest()
	for _, tc := range []struct {
		name    string
		seg     *gctrace.Segment
		version string
		want    string // "" for no note
	}{
		{"the previous collector, from its scan lines", read("go1.26-nogreentea-json.log"), "go1.26.8", "previous collector marked this heap"},
		{"Green Tea on a heap it marks densely", read("go1.26-greentea-json.log"), "go1.26.8", ""},
		{"Green Tea, a third of the objects dense", read("go1.26-greentea-alloc.log"), "go1.26.8", ""},
		{"Green Tea, a tenth of the objects dense", sparse(read("go1.26-greentea-alloc.log")), "go1.26.8", "of the objects it scanned lay on dense spans"},
		{"Go 1.25, without scan lines", plain, "go1.25.3", "Go 1.25 has the Green Tea collector as an experiment"},
		{"Go 1.26, without scan lines", plain, "go1.26.8", ""},
		{"Go 1.22", plain, "go1.22.4", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := collectorNote(newEvidenceView(&Input{GoVersion: tc.version}), tc.seg)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("note %q, want %q", got, tc.want)
			}
			t.Logf("dense share %.2f: %s", tc.seg.Summary.DenseShare(), got)
		})
	}
}

// sparse is s with a tenth of its scanned objects on dense spans: no real
// log at hand has so scattered a heap.
func sparse(s *gctrace.Segment) *gctrace.Segment {
	c := *s
	c.Summary.Scan.SpanDense = c.Summary.Scan.Objects / 10
	return &c
}
