package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestWhatIfProcesses models the log of go vet std, 89 processes: by
// default its busiest, and says so in the JSON with the other busy ones;
// --segment models another and says it was asked for.
func TestWhatIfProcesses(t *testing.T) {
	const log = "../../gctrace/testdata/real/toolchain-go-vet-std.log"
	type process struct {
		Index         int      `json:"index"`
		Label         string   `json:"label"`
		Cycles        int      `json:"cycles"`
		GCCPUFraction *float64 `json:"gc_cpu_fraction"`
		GCCPUMS       *float64 `json:"gc_cpu_ms"`
	}
	tests := []struct {
		name    string
		args    []string
		segment int
		chosen  string
		text    string // in the text report
	}{
		{"busiest", nil, 50, "busiest", "#50 of 89, the process after # crypto/tls [crypto/tls.test] (lines 227-232): the one with the most GC CPU time; --segment N models another"},
		{"asked", []string{"--segment", "0"}, 0, "asked", "#0 of 89, the program (lines 1-324): as asked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := run(t, "", nil, append(append([]string{"whatif", "--json"}, tt.args...), log)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var doc struct {
				Tuning struct {
					Segment    int       `json:"segment"`
					Chosen     string    `json:"segment_chosen"`
					Processes  int       `json:"processes"`
					Others     []process `json:"other_segments"`
					OthersMore int       `json:"other_segments_more"`
				} `json:"tuning"`
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatal(err)
			}
			tu := doc.Tuning
			if tu.Segment != tt.segment || tu.Chosen != tt.chosen || tu.Processes != 89 {
				t.Errorf("segment %d (%s) of %d, want %d (%s) of 89", tu.Segment, tu.Chosen, tu.Processes, tt.segment, tt.chosen)
			}
			if len(tu.Others) != 5 || tu.OthersMore != 83 {
				t.Errorf("%d others listed and %d more, want 5 and 83", len(tu.Others), tu.OthersMore)
			}
			for i, o := range tu.Others {
				if o.Index == tu.Segment || o.Cycles == 0 || o.GCCPUFraction == nil || o.GCCPUMS == nil {
					t.Errorf("other process %+v", o)
				}
				if i > 0 && *o.GCCPUMS > *tu.Others[i-1].GCCPUMS {
					t.Errorf("other processes not the busiest first: %v ms after %v ms", *o.GCCPUMS, *tu.Others[i-1].GCCPUMS)
				}
			}
			text, _, _ := run(t, "", nil, append(append([]string{"whatif", "--width", "1000"}, tt.args...), log)...)
			if !strings.Contains(text, tt.text) || !strings.Contains(text, "Other processes in the log") {
				t.Errorf("the text report does not say which process it models and why (%q):\n%s", tt.text, text)
			}
		})
	}
}

// TestWhatIfDeprecatedFlags gives the settings to predict with the first
// spellings, --gogc and --memlimit: the same report, and one note each.
func TestWhatIfDeprecatedFlags(t *testing.T) {
	const log = "../../pacer/testdata/real/json-marshal.gogc100.r1.log"
	want, _, code := run(t, "", nil, "whatif", "--predict-gogc", "200,400", "--predict-memlimit", "64MiB", log)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	got, stderr, code := run(t, "", nil, "whatif", "--gogc", "200,400", "--memlimit", "64MiB", log)
	if code != 0 || got != want {
		t.Errorf("exit %d; the old spellings gave another report:\n%s\nwant\n%s", code, got, want)
	}
	notes := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(notes) != 2 || !strings.Contains(notes[0], "--gogc is deprecated: use --predict-gogc") || !strings.Contains(notes[1], "--memlimit is deprecated: use --predict-memlimit") {
		t.Errorf("stderr %q, want one note per deprecated flag", stderr)
	}
	_, stderr, code = run(t, "", nil, "whatif", "--gogc", "200", "--predict-gogc", "400", log)
	if code != 2 || !strings.Contains(stderr, "give --predict-gogc only") {
		t.Errorf("both spellings: exit %d, %q", code, stderr)
	}
	help, _, _ := run(t, "", nil, "whatif", "--help")
	if listed := regexp.MustCompile(`(?m)^\s+--(gogc|memlimit) `); listed.MatchString(help) || !strings.Contains(help, "--predict-gogc") {
		t.Errorf("help lists the deprecated flags or not the new ones:\n%s", help)
	}
}
