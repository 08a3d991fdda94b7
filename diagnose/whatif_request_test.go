package diagnose

import (
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func TestNewWhatIfRequest(t *testing.T) {
	tr, err := NewWhatIfRequest([]string{"100", "200"}, []string{"1GiB"}, "latency", "2GiB", "off", "512MiB")
	if err != nil || len(tr.Settings) != 2 || tr.Budget != 2<<30 || tr.BudgetSource != "--budget" {
		t.Fatalf("%+v, %v", tr, err)
	}
	for _, tt := range []struct {
		gogcs                                []string
		goal, budget, currentGOGC, currentML string
		prefix                               string
	}{
		{nil, "cpu", "", "", "", "--predict-gogc: give at least one value"},
		{[]string{"x"}, "cpu", "", "", "", "--predict-gogc x: "},
		{[]string{"100"}, "speed", "", "", "", `--goal must be cpu or latency, not "speed"`},
		{[]string{"100"}, "cpu", "lots", "", "", "--budget lots: "},
		{[]string{"100"}, "cpu", "", "high", "", "--current-gogc high: "},
		{[]string{"100"}, "cpu", "", "", "1.5GB", "--current-memlimit 1.5GB: "},
	} {
		_, err := NewWhatIfRequest(tt.gogcs, nil, tt.goal, tt.budget, tt.currentGOGC, tt.currentML)
		if err == nil || !strings.HasPrefix(err.Error(), tt.prefix) {
			t.Errorf("%+v: %v, want %q…", tt, err, tt.prefix)
		}
	}
}

func TestChooseSegment(t *testing.T) {
	log := &gctrace.Log{Segments: []*gctrace.Segment{{}, {}}}
	for _, tt := range []struct {
		i   int
		set bool
		err string
	}{
		{-1, false, ""},
		{1, true, ""},
		{2, false, "--segment 2: the log has 2 processes (0–1)"},
	} {
		var req TuneRequest
		err := req.ChooseSegment(tt.i, log)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.err || req.SegmentSet != tt.set || (tt.set && req.Segment != tt.i) {
			t.Errorf("ChooseSegment(%d) = %q, %+v; want %q, set %v", tt.i, got, req, tt.err, tt.set)
		}
	}
	if err := new(TuneRequest).ChooseSegment(0, nil); err == nil {
		t.Error("a segment of no log: no error")
	}
}

func TestTuneFlags(t *testing.T) {
	if tr, err := TuneFlags("cpu", ""); err != nil || tr.Budget != 0 {
		t.Errorf("cpu, no budget: %+v, %v", tr, err)
	}
	if _, err := TuneFlags("fast", ""); err == nil || err.Error() != `--goal must be cpu or latency, not "fast"` {
		t.Errorf("goal fast: %v", err)
	}
	if _, err := TuneFlags("cpu", "0"); err == nil || err.Error() != "--budget must be positive" {
		t.Errorf("budget 0: %v", err)
	}
}
