package diagnose

import (
	"strings"
	"testing"
)

// TestHostWording holds the findings on runs beside a busy host, and on
// processes that ran to completion, to what they must say: whose the
// pauses and the waiting were, and advice for a batch job rather than a
// service.
func TestHostWording(t *testing.T) {
	tests := []struct {
		name, rule string
		in         func(*testing.T) *Input
		sev        Severity
		has, lacks []string // in the message and the remedy
	}{
		{"pauses beside hogs", "stw-long", runIn("host/pauses-hogs", ""), Info,
			[]string{"came while the machine's CPUs were contended", "The host, not the program, made them long", "PSI cpu some", "Give the program its CPUs"}, nil},
		{"go build on a busy host", "stw-long", runIn("host/gobuild", ""), Info,
			[]string{"contended for 100% of the run", "most likely made them long"}, nil},
		{"the compiler of runtime", "gc-cpu-high", runIn("host/gobuild", ""), Warning,
			[]string{"one of the processes of a build", "run to completion", "GOGC=400"}, []string{"sync.Pool", "Allocate less"}},
		{"a spinning goroutine, no host figures", "trace-stw-long", traceIn("trace/stw.trace"), Critical,
			[]string{"It waited 296 ms for goroutine 24 (main.stopTheWorld.func1) to stop", "could not be preempted", "Find the loop in main.stopTheWorld.func1"}, nil},
		{"workers beside hogs", "workers-cpu-starved", runIn("host/starved-hogs", "host/starved-hogs/trace.out"), Info,
			[]string{"the host's doing, not too many workers", "trace again on a quiet host"}, nil},
		{"workers, no host figures", "workers-cpu-starved", traceIn("trace/starved.trace"), Warning,
			nil, []string{"host"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Diagnose(tt.in(t))
			var f *Finding
			for i := range d.Findings {
				if d.Findings[i].ID == tt.rule {
					f = &d.Findings[i]
					break
				}
			}
			if f == nil {
				t.Fatalf("%s did not fire", tt.rule)
			}
			text := f.Message + "\n" + f.Remedy
			if f.Severity != tt.sev {
				t.Errorf("severity %v, want %v: %s", f.Severity, tt.sev, text)
			}
			for _, s := range tt.has {
				if !strings.Contains(text, s) {
					t.Errorf("lacks %q:\n%s", s, text)
				}
			}
			for _, s := range tt.lacks {
				if strings.Contains(text, s) {
					t.Errorf("has %q:\n%s", s, text)
				}
			}
		})
	}
}
