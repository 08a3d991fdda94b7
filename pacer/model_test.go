package pacer

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// fitRun fits the first GOGC=100 run of a benchmark in testdata/real.
func fitRun(t testing.TB, bench string) (*Model, *gctrace.Segment) {
	t.Helper()
	seg := readSegment(t, filepath.Join("testdata", "real", bench+".gogc100.r1.log"))
	m, err := Fit(seg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m, seg
}

var benches = []string{"json-marshal", "json-unmarshal", "parser", "png-encode"}

func TestFitErrors(t *testing.T) {
	parse := func(text string) *gctrace.Segment {
		log, err := gctrace.Parse(strings.NewReader(text), "test", gctrace.Options{KeepCycles: true})
		if err != nil {
			t.Fatal(err)
		}
		return log.Segments[0]
	}
	line := func(n int, forced bool) string {
		s := fmt.Sprintf("gc %d @%d.000s 1%%: 0.1+1.0+0.1 ms clock, 0.2+0.1/1.0/0+0.2 ms cpu, 8->9->4 MB, 9 MB goal, 0 MB stacks, 0 MB globals, 2 P", n, n)
		if forced {
			s += " (forced)"
		}
		return s + "\n"
	}
	var few, forced string
	for i := 1; i <= 3; i++ {
		few += line(i, false)
	}
	for i := 1; i <= 10; i++ {
		forced += line(i, true)
	}
	old := parse("gc1(1): 9+0+0 ms, 0 -> 0 MB 16 -> 18 (19-1) objects, 0(0) handoff, 0(0) steal, 0/0/0 yields\ngc2(1): 9+0+0 ms, 0 -> 0 MB 16 -> 18 (19-1) objects, 0(0) handoff, 0(0) steal, 0/0/0 yields\n")
	tests := []struct {
		name string
		seg  *gctrace.Segment
		want string
	}{
		{"nil", nil, "no segment"},
		{"not kept", &gctrace.Segment{}, "no cycles kept"},
		{"go1.2", old, "line 1: the go1.4- format has no live heap"},
		{"too few", parse(few), "line 1: 3 cycles"},
		{"only forced", parse(forced), "at least 3 paced cycles"},
	}
	for _, tt := range tests {
		_, err := Fit(tt.seg, Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// TestPredictObserved replays each fitted log at its own setting: the model
// must give back what the log shows. Besides the benchmarks it replays the
// demo server's log, whose 10 MiB buffers take the heap past its goal
// before most cycles start, so that the runtime prints a moved goal.
func TestPredictObserved(t *testing.T) {
	logs := map[string]string{"demo-server": filepath.Join("..", "internal", "cli", "testdata", "demo-bundle", "gctrace.log")}
	for _, b := range append(benches, "regexp-compile", "types-check") {
		logs[b] = filepath.Join("testdata", "real", b+".gogc100.r1.log")
	}
	for b, path := range logs {
		seg := readSegment(t, path)
		m, err := Fit(seg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := m.Predict(m.Observed)
		if e := relErr(p.Cycles.Value, float64(seg.Summary.Cycles)); e > 0.05 {
			t.Errorf("%s: %v cycles predicted, log has %d", b, p.Cycles, seg.Summary.Cycles)
		}
		if p.Cycles.Low > p.Cycles.Value || p.Cycles.High < p.Cycles.Value {
			t.Errorf("%s: cycles %v: value outside its range", b, p.Cycles)
		}
		if e := relErr(p.GCCPUMS.Value, seg.Summary.GCCPUMS); e > 0.25 {
			t.Errorf("%s: %v ms GC CPU predicted, log has %.0f", b, p.GCCPUMS, seg.Summary.GCCPUMS)
		}
		if p.ForcedCycles != seg.Summary.Forced {
			t.Errorf("%s: %d forced cycles, log has %d", b, p.ForcedCycles, seg.Summary.Forced)
		}
		if p.Risk != RiskNone {
			t.Errorf("%s: risk %v without a limit", b, p.Risk)
		}
	}
}

func TestPredictSettings(t *testing.T) {
	m, _ := fitRun(t, "json-marshal")
	base := m.Predict(Setting{GOGC: 100})
	tests := []struct {
		name   string
		s      Setting
		check  func(p Prediction) string
		risk   Risk
		caveat string
	}{
		{"more GOGC, fewer cycles and a bigger heap", Setting{GOGC: 400}, func(p Prediction) string {
			if p.Cycles.Value >= base.Cycles.Value/2 || p.PeakHeap.Value <= base.PeakHeap.Value || p.GCCPUMS.Value >= base.GCCPUMS.Value {
				return fmt.Sprintf("cycles %v, peak %v, CPU %v", p.Cycles, p.PeakHeap, p.GCCPUMS)
			}
			return ""
		}, RiskNone, ""},
		{"off without a limit never collects", Setting{GOGC: Off}, func(p Prediction) string {
			if p.PacedCycles.Value != 0 || p.PeakHeap.Value < m.AllocatedMiB*(1<<20)*0.9 {
				return fmt.Sprintf("paced %v, peak %v", p.PacedCycles, p.PeakHeap)
			}
			return ""
		}, RiskNone, "never collects"},
		{"generous limit", Setting{GOGC: 100, MemoryLimit: 1 << 30}, func(p Prediction) string {
			if p.LimitedCycles != 0 || math.Abs(p.Cycles.Value-base.Cycles.Value) > 0 {
				return fmt.Sprintf("limited %d, cycles %v", p.LimitedCycles, p.Cycles)
			}
			return ""
		}, RiskNone, "non-heap memory"},
		{"off with a limit", Setting{GOGC: Off, MemoryLimit: 64 << 20}, func(p Prediction) string {
			if p.LimitedCycles == 0 || p.RSS.Value > 64<<20 {
				return fmt.Sprintf("limited %d, RSS %v", p.LimitedCycles, p.RSS)
			}
			return ""
		}, RiskLow, ""},
		{"limit at the live heap", Setting{GOGC: 100, MemoryLimit: 12 << 20}, nil, RiskHigh, ""},
		{"limit below non-heap memory", Setting{GOGC: Off, MemoryLimit: 4 << 20}, nil, RiskHigh, ""},
	}
	for _, tt := range tests {
		p := m.Predict(tt.s)
		if tt.check != nil {
			if msg := tt.check(p); msg != "" {
				t.Errorf("%s: %s", tt.name, msg)
			}
		}
		if p.Risk != tt.risk {
			t.Errorf("%s: risk %v (%s), want %v", tt.name, p.Risk, p.RiskReason, tt.risk)
		}
		if tt.caveat != "" && !strings.Contains(strings.Join(p.Caveats, "\n"), tt.caveat) {
			t.Errorf("%s: no caveat about %q in %q", tt.name, tt.caveat, p.Caveats)
		}
	}
}

// TestRecommend writes the recommendations for the recorded benchmarks to
// testdata/recommend.golden (-update rewrites it).
func TestRecommend(t *testing.T) {
	var b strings.Builder
	for _, bench := range benches {
		m, _ := fitRun(t, bench)
		for _, budget := range []int64{32 << 20, 256 << 20} {
			for _, obj := range []Objective{CPU, Latency} {
				r := Recommend(m, budget, obj)
				fmt.Fprintf(&b, "%s, budget %s, %s: %s\n  %s\n", bench, FormatSize(budget), obj, r.Setting, r.Gain)
				for _, s := range r.Reasons {
					fmt.Fprintf(&b, "  reason: %s\n", s)
				}
				for _, s := range r.Caveats {
					fmt.Fprintf(&b, "  warning: %s\n", s)
				}
				if r.Setting.MemoryLimit <= 0 || r.Setting.MemoryLimit > budget*95/100 {
					t.Errorf("%s: limit %d for a budget of %d", bench, r.Setting.MemoryLimit, budget)
				}
				if r.Expected.Risk > RiskLow {
					t.Errorf("%s %s: recommended a setting of risk %v", bench, obj, r.Expected.Risk)
				}
			}
		}
	}
	golden := filepath.Join("testdata", "recommend.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != b.String() {
		t.Errorf("recommendations changed (run go test -update):\n%s", b.String())
	}
}

// TestCostFit checks the split of a cycle's GC CPU into the fixed
// stop-the-world part and marking in proportion to the heap scanned, and
// that the line gives back the total cost it was fitted on.
func TestCostFit(t *testing.T) {
	tests := []struct {
		name                string
		scans, costs, fixed []float64
		a, b, r2            float64
		nanR2               bool
	}{
		// Fixed 1 ms a cycle, marking 2 ms per MiB.
		{"line", []float64{1, 2, 3}, []float64{3, 5, 7}, []float64{1, 1, 1}, 1, 2, 1, false},
		// Marking 9 ms over 6 MiB scanned: 1.5 ms per MiB, whatever the
		// cycles' own slope; residuals −0.5, 0 and 0.5 against a spread of 2.
		{"ratio, not least squares", []float64{1, 2, 3}, []float64{2, 4, 6}, []float64{1, 1, 1}, 1, 1.5, 1 - 0.5/8, false},
		{"no marking", []float64{1, 2, 3}, []float64{1, 1, 1}, []float64{1, 1, 1}, 1, 0, 0, true},
		{"no cycles", nil, nil, nil, 0, 0, 0, true},
	}
	for _, tt := range tests {
		a, b, r2, _ := costFit(tt.scans, tt.costs, tt.fixed)
		near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
		if !near(a, tt.a) || !near(b, tt.b) || (tt.nanR2 != math.IsNaN(r2)) || (!tt.nanR2 && !near(r2, tt.r2)) {
			t.Errorf("%s: costFit = %g + %g·x (R² %g), want %g + %g·x (R² %g)", tt.name, a, b, r2, tt.a, tt.b, tt.r2)
		}
		var got, want float64
		for i := range tt.scans {
			got += a + b*tt.scans[i]
			want += tt.costs[i]
		}
		if !near(got, want) {
			t.Errorf("%s: the line gives %g ms for the cycles fitted, they cost %g", tt.name, got, want)
		}
	}
}

// TestFitPinned fits the log of Go issue 58106, a program in a GC death
// spiral under GOMEMLIMIT: the heap is at its goal when every cycle starts.
// The model must still fit it, say so, and predict the spiral at a limit
// just above the live heap and its end with more room.
func TestFitPinned(t *testing.T) {
	seg := readSegment(t, filepath.Join("..", "gctrace", "testdata", "corpus", "15-go58106-gomemlimit-death-spiral-3P.log"))
	m, err := Fit(seg, Options{GoMinor: 19})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(m.Caveats, " "), "no cycle in the log had a runway") {
		t.Errorf("warnings %q do not say the goal was pinned", m.Caveats)
	}
	if m.ShortfallMiB > -100 {
		t.Errorf("shortfall %.1f MiB: each cycle allocated 130–200 MiB past its goal", m.ShortfallMiB)
	}
	tight := m.Predict(Setting{GOGC: 100, MemoryLimit: 2200 << 20})
	roomy := m.Predict(Setting{GOGC: 100, MemoryLimit: 3 << 30})
	if tight.Risk != RiskHigh {
		t.Errorf("at 2200MiB (live heap about 2080 MiB): risk %v, want high", tight.Risk)
	}
	if roomy.Risk == RiskHigh || roomy.Cycles.Value >= tight.Cycles.Value/2 {
		t.Errorf("at 3GiB: risk %v and %v cycles, want fewer than half the %v at 2200MiB", roomy.Risk, roomy.Cycles, tight.Cycles)
	}
}
