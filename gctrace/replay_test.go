package gctrace

import (
	"fmt"
	"strings"
	"testing"
)

// cycleLine returns a Go 1.26 cycle line numbered num that starts at s
// seconds after its process started and lasts about 1.1 ms.
func cycleLine(num int, s float64) string {
	return fmt.Sprintf("gc %d @%.3fs 3%%: 0.1+1+0.01 ms clock, 0.2+0.1/0.5/0+0.02 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P", num, s)
}

// TestReplayedSegments feeds the parser what a 0.5 s "go build" printed
// on a machine whose build cache held gctrace output of earlier compiles:
// the go command's own cycles, with blocks of old compiler output replayed
// between them. Only the go command is a process of the run.
func TestReplayedSegments(t *testing.T) {
	log := strings.Join([]string{
		cycleLine(1, 0.010),
		"# runtime",
		cycleLine(1, 0.012), // early enough to be of the run, but its process is replayed
		cycleLine(2, 4.646),
		cycleLine(3, 5.454),
		cycleLine(2, 0.150), // the go command again: continues it, not the replayed runtime
		"# syscall",
		cycleLine(1, 3.299),
		cycleLine(3, 0.300),
		"# example.com/m",
		cycleLine(1, 0.020), // a compile of the run
		cycleLine(2, 0.120),
		cycleLine(4, 0.480),
	}, "\n") + "\n"
	tests := []struct {
		name                  string
		runS                  float64
		segments              []int // cycles per kept segment
		replayed, cycles      int
		firstLabel, lastLabel string
	}{
		{"run length known", 0.5, []int{4, 2}, 2, 4, "", "# example.com/m"},
		{"run length unknown", 0, []int{4, 3, 1, 2}, 0, 0, "", "# example.com/m"},
		// The last replayed cycle ends at 5.45511 s.
		{"last cycle just within the run", 5.4502, []int{4, 3, 1, 2}, 0, 0, "", "# example.com/m"},
		{"last cycle just after the run", 5.449, []int{4, 1, 2}, 1, 3, "", "# example.com/m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(strings.NewReader(log), "go-build.log", Options{RunS: tt.runS})
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for i, s := range l.Segments {
				got = append(got, s.Summary.Cycles)
				if s.Index != i {
					t.Errorf("segment %v has index %d, want %d", s, s.Index, i)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.segments) {
				t.Errorf("segments with %v cycles, want %v", got, tt.segments)
			}
			if l.Replayed != tt.replayed || l.ReplayedCycles != tt.cycles {
				t.Errorf("replayed %d segments, %d cycles; want %d, %d", l.Replayed, l.ReplayedCycles, tt.replayed, tt.cycles)
			}
			if n := l.Inputs[0].Segments; n != len(l.Segments) {
				t.Errorf("input counts %d segments, the log lists %d", n, len(l.Segments))
			}
			if len(l.Segments) > 0 {
				if first, last := l.Segments[0].Label, l.Segments[len(l.Segments)-1].Label; first != tt.firstLabel || last != tt.lastLabel {
					t.Errorf("labels %q … %q, want %q … %q", first, last, tt.firstLabel, tt.lastLabel)
				}
			}
		})
	}
}
