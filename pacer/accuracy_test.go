package pacer

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Accuracy targets for the predicted cycle count over all (benchmark,
// setting) pairs: median error 7%, no error above 20%.
const (
	targetMedianErr = 0.07
	targetWorstErr  = 0.20
)

// knownMisses are the pairs the model misses by more than targetWorstErr,
// with the error the test holds them to. regexp-compile at GOGC=800: its
// mark phase, no longer held back by assists once the runway is 30 MiB,
// allocates 3–7 MiB that the runtime marks live, and the next goal is 9
// times that; the GOGC=100 log shows only the 0.6 MiB its assist-limited
// marks allocate (docs/accuracy.md, "What remains").
var knownMisses = map[string]float64{
	"regexp-compile GOGC=800": 0.25,
}

// run is one recorded log in testdata/real.
type run struct {
	bench   string
	setting Setting
	rep     int
	seg     *gctrace.Segment
}

// loadRuns reads every log in testdata/real, named
// BENCH.gogcSETTING.rREP.log where SETTING is a number or off-LIMIT.
func loadRuns(t testing.TB) []run {
	files, err := filepath.Glob(filepath.Join("testdata", "real", "*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no logs in testdata/real: %v", err)
	}
	var runs []run
	for _, f := range files {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(f), ".log"), ".")
		if len(parts) != 3 || !strings.HasPrefix(parts[1], "gogc") || !strings.HasPrefix(parts[2], "r") {
			t.Fatalf("%s: want BENCH.gogcSETTING.rREP.log", f)
		}
		var s Setting
		sv := strings.TrimPrefix(parts[1], "gogc")
		if lim, ok := strings.CutPrefix(sv, "off-"); ok {
			s.GOGC = Off
			if s.MemoryLimit, err = ParseSize(lim); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		} else if s.GOGC, err = strconv.Atoi(sv); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rep, _ := strconv.Atoi(parts[2][1:])
		seg := readSegment(t, f)
		runs = append(runs, run{bench: parts[0], setting: s, rep: rep, seg: seg})
	}
	return runs
}

// readSegment returns the test binary's segment of a log: the one with the
// most cycles.
func readSegment(t testing.TB, path string) *gctrace.Segment {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := gctrace.Parse(f, path, gctrace.Options{KeepCycles: true})
	if err != nil {
		t.Fatal(err)
	}
	var best *gctrace.Segment
	for _, s := range log.Segments {
		if best == nil || s.Summary.Cycles > best.Summary.Cycles {
			best = s
		}
	}
	return best
}

// row is one (benchmark, setting) pair of the accuracy table.
type row struct {
	bench   string
	setting Setting
	// Real medians over the repetitions.
	realCycles, realCPU, realPeak float64 // cycles, ms, MiB
	realMin, realMax              float64 // cycles
	pred                          Prediction
	naive                         float64
}

func (r row) cycleErr() float64 { return relErr(r.pred.Cycles.Value, r.realCycles) }
func (r row) naiveErr() float64 { return relErr(r.naive, r.realCycles) }
func (r row) cpuErr() float64   { return relErr(r.pred.GCCPUMS.Value, r.realCPU) }
func (r row) peakErr() float64  { return relErr(r.pred.PeakHeap.Value/(1<<20), r.realPeak) }

func relErr(pred, real float64) float64 { return math.Abs(pred-real) / real }

// accuracyTable fits a model on the first GOGC=100 repetition of every
// benchmark and predicts every other setting.
func accuracyTable(t testing.TB) []row {
	runs := loadRuns(t)
	type key struct {
		bench   string
		setting Setting
	}
	groups := map[key][]run{}
	for _, r := range runs {
		k := key{r.bench, r.setting}
		groups[k] = append(groups[k], r)
	}
	models := map[string]*Model{}
	fits := map[string]*gctrace.Segment{}
	for k, g := range groups {
		if k.setting == (Setting{GOGC: 100}) {
			sort.Slice(g, func(i, j int) bool { return g[i].rep < g[j].rep })
			m, err := Fit(g[0].seg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			models[k.bench] = m
			fits[k.bench] = g[0].seg
		}
	}
	var rows []row
	for k, g := range groups {
		m := models[k.bench]
		if m == nil {
			t.Fatalf("%s: no GOGC=100 run to fit", k.bench)
		}
		var cyc, cpu, peak []float64
		for _, r := range g {
			cyc = append(cyc, float64(r.seg.Summary.Cycles))
			cpu = append(cpu, r.seg.Summary.GCCPUMS)
			peak = append(peak, float64(r.seg.Summary.PeakHeapMB)+0.5)
		}
		fit := fits[k.bench].Summary
		naive := float64(fit.Cycles - fit.Forced)
		if k.setting.GOGC > 0 {
			naive *= 100 / float64(k.setting.GOGC)
		} else {
			// The naive rule has nothing to say about GOGC=off with a
			// limit; scale by the limit's room over the observed peak.
			naive *= (float64(fit.PeakHeapMB) + 0.5) / (float64(k.setting.MemoryLimit) / (1 << 20))
		}
		naive += float64(fit.Forced)
		rows = append(rows, row{
			bench: k.bench, setting: k.setting,
			realCycles: medianOf(cyc), realCPU: medianOf(cpu), realPeak: medianOf(peak),
			realMin: slices.Min(cyc), realMax: slices.Max(cyc),
			pred: m.Predict(k.setting), naive: naive,
		})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].bench != rows[j].bench {
			return rows[i].bench < rows[j].bench
		}
		return settingOrder(rows[i].setting) < settingOrder(rows[j].setting)
	})
	return rows
}

func settingOrder(s Setting) int {
	if s.GOGC < 0 {
		return math.MaxInt
	}
	return s.GOGC
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// errStats returns the median and the largest of errs.
func errStats(errs []float64) (med, worst float64) {
	return medianOf(errs), slices.Max(errs)
}

// formatTable writes the accuracy table as Markdown.
func formatTable(rows []row) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "| benchmark | setting | real cycles (min–max) | predicted (range) | error | naive | naive error | real GC CPU ms | predicted | error | real peak MiB | predicted | error |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var ce, ne, pe, he []float64
	for _, r := range rows {
		fit := r.setting == Setting{GOGC: 100}
		mark := ""
		if fit {
			mark = " (fit)"
		}
		fmt.Fprintf(&b, "| %s | %s%s | %.0f (%.0f–%.0f) | %.0f (%.0f–%.0f) | %.1f%% | %.0f | %.1f%% | %.0f | %.0f | %.0f%% | %.1f | %.1f | %.0f%% |\n",
			r.bench, r.setting, mark, r.realCycles, r.realMin, r.realMax,
			r.pred.Cycles.Value, r.pred.Cycles.Low, r.pred.Cycles.High, r.cycleErr()*100,
			r.naive, r.naiveErr()*100,
			r.realCPU, r.pred.GCCPUMS.Value, r.cpuErr()*100,
			r.realPeak, r.pred.PeakHeap.Value/(1<<20), r.peakErr()*100)
		if !fit {
			ce = append(ce, r.cycleErr())
			ne = append(ne, r.naiveErr())
			pe = append(pe, r.cpuErr())
			he = append(he, r.peakErr())
		}
	}
	b.WriteString("\n")
	for _, s := range []struct {
		name string
		errs []float64
	}{{"cycles, model", ce}, {"cycles, naive (cycles × 100/GOGC)", ne}, {"GC CPU, model", pe}, {"peak heap, model", he}} {
		med, worst := errStats(s.errs)
		fmt.Fprintf(&b, "%s: median error %.1f%%, worst %.1f%% over %d pairs\n", s.name, med*100, worst*100, len(s.errs))
	}
	return b.String()
}

// TestAccuracy recomputes the accuracy table from the recorded logs and
// fails if the cycle-count predictions miss the targets (a median error
// above 7%, or any pair but the knownMisses above 20%) or do not beat the
// naive rule. The table is kept in testdata/accuracy.golden (-update
// rewrites it) and copied into docs/accuracy.md and docs/pacer.md.
func TestAccuracy(t *testing.T) {
	rows := accuracyTable(t)
	table := formatTable(rows)
	golden := filepath.Join("testdata", "accuracy.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != table {
		t.Errorf("accuracy table changed (run go test -update and copy it to docs/accuracy.md and docs/pacer.md):\n%s", table)
	}
	var ce, ne []float64
	for _, r := range rows {
		if r.setting == (Setting{GOGC: 100}) {
			continue
		}
		ce = append(ce, r.cycleErr())
		ne = append(ne, r.naiveErr())
		name := r.bench + " " + r.setting.String()
		bound, known := knownMisses[name]
		if !known {
			bound = targetWorstErr
		} else if r.cycleErr() <= targetWorstErr {
			t.Logf("%s: %.1f%% now meets the %.0f%% target: drop it from knownMisses", name, r.cycleErr()*100, targetWorstErr*100)
		}
		if r.cycleErr() > bound {
			t.Errorf("%s: cycle-count error %.1f%%, want ≤ %.0f%%", name, r.cycleErr()*100, bound*100)
		}
	}
	med, worst := errStats(ce)
	nmed, nworst := errStats(ne)
	t.Logf("cycles: model median %.1f%% worst %.1f%%; naive median %.1f%% worst %.1f%%", med*100, worst*100, nmed*100, nworst*100)
	if med > targetMedianErr {
		t.Errorf("median cycle-count error %.1f%%, want ≤ %.0f%%", med*100, targetMedianErr*100)
	}
	if med >= nmed || worst >= nworst {
		t.Errorf("model (median %.1f%%, worst %.1f%%) does not beat the naive rule (%.1f%%, %.1f%%)", med*100, worst*100, nmed*100, nworst*100)
	}
}
