package compare

import (
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestSampleStatistics(t *testing.T) {
	shifted := Sample{10, 11, 12, 13, 14, 15}
	same := Sample{10.5, 11.5, 12.5, 13.5, 14.5, 15.5}
	doubled := Sample{20, 22, 24, 26, 28, 30}
	tests := []struct {
		name        string
		base, s     Sample
		better      int
		significant bool
		improvement bool
		text        string
		warning     string
	}{
		{"doubled", shifted, doubled, -1, true, false, "+100.00% (p=0.002 n=6)", ""},
		{"halved", doubled, shifted, -1, true, true, "-50.00% (p=0.002 n=6)", ""},
		{"noise", shifted, same, -1, false, false, "~ (p=0.699 n=6)", ""},
		{"too few", Sample{1, 2, 3}, Sample{10, 20, 30}, -1, false, false, "~ (p=0.100 n=3)", "need >= 4 samples to detect a difference at alpha level 0.05"},
		{"equal", Sample{2, 2, 2, 2}, Sample{2, 2, 2, 2}, -1, false, false, "~ (p=1.000 n=4)", "all samples are equal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.s.Compare(tt.base, tt.better)
			if d.Significant != tt.significant || d.Better != tt.improvement {
				t.Errorf("significant %v better %v, want %v %v", d.Significant, d.Better, tt.significant, tt.improvement)
			}
			if got := d.String(); got != tt.text {
				t.Errorf("String() = %q, want %q", got, tt.text)
			}
			if tt.warning != "" && !slices.Contains(d.Caveats, tt.warning) {
				t.Errorf("warnings %q lack %q", d.Caveats, tt.warning)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	s := Sample{5, 1, 4, 2, 3, 6, 7}
	sum := s.Summarize()
	if sum.N != 7 || sum.Median != 4 || sum.Lo > 4 || sum.Hi < 4 || math.IsInf(sum.Lo, 0) || len(sum.Caveats) != 0 {
		t.Errorf("summary %+v", sum)
	}
	if !slices.Equal(s, Sample{5, 1, 4, 2, 3, 6, 7}) {
		t.Errorf("Summarize reordered the sample: %v", s)
	}
	small := Sample{1, 2, 3}.Summarize()
	if !math.IsInf(small.Hi, 1) || len(small.Caveats) != 1 || !strings.Contains(small.Caveats[0], "need >= 6 samples") {
		t.Errorf("small summary %+v", small)
	}
	if e := (Sample{}).Summarize(); e.N != 0 || !math.IsNaN(e.Median) {
		t.Errorf("empty summary %+v", e)
	}
}

func TestLoad(t *testing.T) {
	s, err := Load("testdata/before.txt")
	if err != nil {
		t.Fatal(err)
	}
	if s.Bench == nil || len(s.Runs) != 0 {
		t.Fatalf("side %+v", s)
	}
	if got := s.Bench.Get(s.Bench.Results[0].Pkg, "Join-2", "sec/op"); len(got) != 6 {
		t.Errorf("Join-2 sec/op: %v", got)
	}

	logs, err := Load("../pacer/testdata/real/json-marshal.gogc100.r1.log,../pacer/testdata/real/json-marshal.gogc100.r2.log")
	if err != nil {
		t.Fatal(err)
	}
	if len(logs.Runs) != 2 || logs.Runs[0].GCCount != 106 || !math.IsNaN(logs.Runs[0].WallS) {
		t.Errorf("runs %+v", logs.Runs)
	}

	if _, err := Load("testdata/notbench.txt"); !errors.Is(err, errNeither) {
		t.Errorf("notbench.txt: %v", err)
	}
	if _, err := Load("testdata/missing.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// A directory skips what is not evidence (README.md, notbench.txt).
	dir, err := Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(dir.Inputs) != 2 {
		t.Errorf("inputs from testdata/: %q", dir.Inputs)
	}
}
