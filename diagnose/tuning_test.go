package diagnose

import (
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// TestTuneProcesses models a go build log of 31 processes: by default
// its busiest (the compile of net/http), else the one asked for, and
// lists the busiest of the others either way.
func TestTuneProcesses(t *testing.T) {
	log := gctraceLog(t, "gctrace/go-build-cmd-go.gctrace.log")
	tests := []struct {
		name      string
		req       TuneRequest
		segment   int
		asked     bool
		which     string
		firstLeft int // the first of the others
	}{
		{"busiest", TuneRequest{}, 20, false, "#20 of 31, the process after # net/http (lines 107-112): the one with the most GC CPU time", 1},
		{"asked", TuneRequest{Segment: 0, SegmentSet: true}, 0, true, "#0 of 31, the program (lines 1-", 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tu := tune(log, &tt.req)
			if tu.Segment.Index != tt.segment || tu.Asked != tt.asked || tu.Processes != 31 {
				t.Fatalf("segment %d asked %v of %d processes, want %d %v of 31", tu.Segment.Index, tu.Asked, tu.Processes, tt.segment, tt.asked)
			}
			if w := tu.Which(); !strings.HasPrefix(w, tt.which) {
				t.Errorf("Which() = %q, want it to start %q", w, tt.which)
			}
			if len(tu.Others) != maxOtherProcesses || tu.Others[0].Index != tt.firstLeft {
				t.Fatalf("others %d, the first #%d; want %d, the first #%d", len(tu.Others), tu.Others[0].Index, maxOtherProcesses, tt.firstLeft)
			}
			for i, o := range tu.Others {
				if o == tu.Segment {
					t.Errorf("the process modelled is among the others")
				}
				if i > 0 && o.Summary.GCCPUMS > tu.Others[i-1].Summary.GCCPUMS {
					t.Errorf("others not the busiest first: #%d has %.0f ms after %.0f ms", o.Index, o.Summary.GCCPUMS, tu.Others[i-1].Summary.GCCPUMS)
				}
			}
			for _, s := range log.Segments {
				if s != tu.Segment && s.Summary.GCCPUMS > tu.Others[len(tu.Others)-1].Summary.GCCPUMS && !containsSeg(tu.Others, s.Index) {
					t.Errorf("#%d (%.0f ms) left out of the others", s.Index, s.Summary.GCCPUMS)
				}
			}
		})
	}
}

func containsSeg(segs []*gctrace.Segment, i int) bool {
	for _, s := range segs {
		if s.Index == i {
			return true
		}
	}
	return false
}
