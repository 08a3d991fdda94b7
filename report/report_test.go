package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
)

// parse builds a diagnosis from log text.
func parse(t *testing.T, text string) *diagnose.Diagnosis {
	t.Helper()
	l, err := gctrace.Parse(strings.NewReader(text), "t.log", gctrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return diagnose.Diagnose(&diagnose.Input{Log: l})
}

// A single pre-1.5 cycle has no timestamps, live heap or goal: those
// figures must be null in JSON, never a made-up 0.
func TestJSONUnknownIsNull(t *testing.T) {
	d := parse(t, "gc15(8): 5416+53+14938+239 us, 40 -> 42 MB, 416228 (1544624-1128396) objects, 5777 goroutines, 10790/8093/0 sweeps, 29(1497) handoff, 56(15163) steal, 264/70/222 yields\n")
	var buf bytes.Buffer
	if err := JSON(&buf, d, "test"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Segments      []struct {
			Format  string                     `json:"format"`
			Summary map[string]json.RawMessage `json:"summary"`
		} `json:"segments"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if doc.SchemaVersion != SchemaVersion || len(doc.Segments) != 1 || doc.Segments[0].Format != "go1.4-" {
		t.Fatalf("unexpected document %s", buf.String())
	}
	s := doc.Segments[0].Summary
	for _, k := range []string{"gc_cpu_percent", "gc_per_second", "live_last_mb", "max_goal_mb", "runtime_gc_cpu_percent", "alloc_mb_per_s", "wall_s"} {
		if string(s[k]) != "null" {
			t.Errorf("%s = %s, want null", k, s[k])
		}
	}
	if string(s["max_pause_ms"]) != "20.646" || string(s["cycles"]) != "1" {
		t.Errorf("max_pause_ms %s, cycles %s", s["max_pause_ms"], s["cycles"])
	}
}

func TestTextWraps(t *testing.T) {
	d := parse(t, strings.Repeat("gc 1 @0.1s 1%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB goal, 2 P\n", 1))
	for _, width := range []int{60, 80, 120} {
		var buf bytes.Buffer
		if err := Text(&buf, d, TextOptions{Width: width}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(buf.String(), "\n") {
			if n := len([]rune(line)); n > width {
				t.Errorf("width %d: line of %d: %q", width, n, line)
			}
		}
	}
}

func TestFmtNum(t *testing.T) {
	tests := map[float64]string{0: "0", 3: "3.00", 3.1: "3.10", 0.24: "0.240", 17.82: "17.8", 1367.4: "1367", 0.0031: "0.0031"}
	for v, want := range tests {
		if got := fmtNum(v); got != want {
			t.Errorf("fmtNum(%v) = %q, want %q", v, got, want)
		}
	}
}
