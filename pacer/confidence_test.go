package pacer

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// fittedTolerance is how close the model's GC CPU at the setting it was
// fitted on must come to the GC CPU measured on the same log
// (docs/pacer.md, "GC CPU"): every recorded run within 25%, as Reproduces
// requires, and the median within 2%.
const (
	fittedWorst  = 0.25
	fittedMedian = 0.02
)

// TestFittedSettingMatchesLog fits every recorded run at its own setting
// and holds the predicted GC CPU fraction, and the cycles, against what
// the same log measures with GCCPUFraction, the definition sweep and
// bench measure with.
func TestFittedSettingMatchesLog(t *testing.T) {
	var errs []float64
	for _, dir := range []string{"real", "contended"} {
		for _, r := range loadRuns(t, filepath.Join("testdata", dir)) {
			m, err := Fit(r.seg, Options{GOGC: r.setting.GOGC, MemoryLimit: r.setting.MemoryLimit})
			if err != nil {
				t.Fatalf("%s: %v", r.path, err)
			}
			if !m.Reproduces() {
				t.Errorf("%s: the model does not reproduce its own log: %.0f cycles and %.0f ms replayed, %d and %.0f ms logged", r.path, m.ReplayCycles, m.ReplayCPUMS, m.Cycles, m.LoggedCPUMS())
			}
			p := m.Predict(r.setting)
			measured := GCCPUFraction(&r.seg.Summary)
			e := relErr(p.GCCPUFraction.Value, measured)
			errs = append(errs, e)
			if e > fittedWorst {
				t.Errorf("%s: GC CPU %.2f%% predicted at the fitted setting, %.2f%% measured (%.0f%% off)", r.path, p.GCCPUFraction.Value*100, measured*100, e*100)
			}
			if p.Cycles.Value != m.ReplayCycles {
				t.Errorf("%s: Predict gives %v cycles, the replay %v", r.path, p.Cycles.Value, m.ReplayCycles)
			}
		}
	}
	med, worst := errStats(errs)
	t.Logf("GC CPU at the fitted setting: median error %.1f%%, worst %.1f%% over %d runs", med*100, worst*100, len(errs))
	if med > fittedMedian {
		t.Errorf("median GC CPU error at the fitted setting %.1f%%, want ≤ %.0f%%", med*100, fittedMedian*100)
	}
}

// TestWeakFits checks that a weak fit widens its GC CPU range and says
// why, that a model that does not give back its own log withholds its
// ranges, and that a good fit gives them without a caveat.
func TestWeakFits(t *testing.T) {
	corpus := filepath.Join("..", "gctrace", "testdata", "corpus")
	tests := []struct {
		name, path    string
		opts          Options
		segment       string // the label of the segment to fit; "" for the busiest
		reproduces    bool
		cpuRange      bool   // a GC CPU range is given
		wide          bool   // and said to be wide (GCCPURangeWide)
		caveat        string // in Model.Caveats
		minCycleRange float64
	}{
		{"good fit", filepath.Join("testdata", "real", "regexp-compile.gogc100.r1.log"), Options{}, "", true, true, false, "", 0.10},
		// Single cycles cost from 0.5 to 30 ms around their line.
		{"cost scatter", filepath.Join("testdata", "real", "json-marshal.gogc100.r1.log"), Options{}, "", true, true, true, "GC CPU range widened: the cost of a cycle does not follow the heap it scans", 0.10},
		{"few paced cycles", filepath.Join("testdata", "real", "json-unmarshal.gogc800.r1.log"), Options{GOGC: 800}, "", true, true, true, "6 paced cycles are too few", 0.40},
		// The compiler sets its own GOGC: goals of 70, 75 and 100 MiB over
		// live heaps of 11, 36 and 52 MiB.
		{"program's own GOGC", filepath.Join(corpus, "go-build-cmd-go.gctrace.log"), Options{}, "# net/http", false, false, false, "does not give back its own log", math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := readLog(t, tt.path)
			seg := log.Busiest()
			if tt.segment != "" {
				i := slices.IndexFunc(log.Segments, func(s *gctrace.Segment) bool { return s.Label == tt.segment })
				if i < 0 {
					t.Fatalf("no segment %q", tt.segment)
				}
				seg = log.Segments[i]
			}
			m, err := Fit(seg, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if m.Reproduces() != tt.reproduces {
				t.Errorf("Reproduces() = %v (%.0f cycles and %.0f ms replayed, %d and %.0f ms logged), want %v", m.Reproduces(), m.ReplayCycles, m.ReplayCPUMS, m.Cycles, m.LoggedCPUMS(), tt.reproduces)
			}
			p := m.Predict(Setting{GOGC: 400})
			if got := Valid(p.GCCPUMS.Low) && Valid(p.GCCPUFraction.High); got != tt.cpuRange {
				t.Errorf("GC CPU range %v given: %v, want %v", p.GCCPUMS, got, tt.cpuRange)
			}
			if got := m.GCCPURangeWithheld() == ""; got != tt.cpuRange {
				t.Errorf("GCCPURangeWithheld() = %q, want a reason: %v", m.GCCPURangeWithheld(), !tt.cpuRange)
			}
			if got := m.GCCPURangeWide() != ""; got != tt.wide {
				t.Errorf("GCCPURangeWide() = %q, want a reason: %v", m.GCCPURangeWide(), tt.wide)
			}
			if tt.caveat != "" && !strings.Contains(strings.Join(m.Caveats, "\n"), tt.caveat) {
				t.Errorf("no caveat about %q in %q", tt.caveat, m.Caveats)
			}
			pc := p.PacedCycles
			half := math.Min(pc.Value-pc.Low, pc.High-pc.Value) / pc.Value
			switch {
			case math.IsNaN(tt.minCycleRange):
				if !math.IsNaN(half) || !math.IsNaN(p.Cycles.Low) {
					t.Errorf("cycles %v, paced %v: the ranges should be withheld", p.Cycles, pc)
				}
			case !(half >= tt.minCycleRange):
				t.Errorf("paced cycles %v: half-range %.0f%%, want at least %.0f%%", pc, half*100, tt.minCycleRange*100)
			}
			if tt.cpuRange && !(p.GCCPUMS.Low <= p.GCCPUMS.Value && p.GCCPUMS.Value <= p.GCCPUMS.High) {
				t.Errorf("GC CPU %v: value outside its range", p.GCCPUMS)
			}
		})
	}
}

// TestLateStart fits a log that starts at cycle 290 of a long-running
// process: the replay must start from the heap that cycle left, not from
// an empty one, and give back the log's six cycles.
func TestLateStart(t *testing.T) {
	log := readLog(t, filepath.Join("..", "gctrace", "testdata", "corpus", "05-go14812-cockroach-go19-8P.log"))
	m, err := Fit(log.Busiest(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.ReplayCycles != float64(m.Cycles) || !m.Reproduces() {
		t.Errorf("replay %v cycles and %.0f ms, log %d and %.0f ms", m.ReplayCycles, m.ReplayCPUMS, m.Cycles, m.LoggedCPUMS())
	}
	if !strings.Contains(strings.Join(m.Caveats, "\n"), "starts at cycle 290") {
		t.Errorf("caveats %q do not say the log starts late", m.Caveats)
	}
	if p := m.Predict(Setting{GOGC: 200}); p.Cycles.Value >= float64(m.Cycles) {
		t.Errorf("GOGC=200: %v cycles, want fewer than %d", p.Cycles, m.Cycles)
	}
}

func TestGCCPUFraction(t *testing.T) {
	seg := readSegment(t, filepath.Join("testdata", "real", "parser.gogc100.r1.log"))
	s := seg.Summary
	want := s.GCCPUMS / (s.WallS * 1000 * float64(s.Procs))
	if got := GCCPUFraction(&s); got != want || !(got > 0.03 && got < 0.05) {
		t.Errorf("GCCPUFraction = %v, want %v (3.8%%)", got, want)
	}
	s.WallS = math.NaN()
	if got := GCCPUFraction(&s); !math.IsNaN(got) {
		t.Errorf("no wall time: GCCPUFraction = %v, want NaN", got)
	}
}
