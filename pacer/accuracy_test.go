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

// run is one recorded log in testdata/real.
type run struct {
	bench   string
	setting Setting
	rep     int
	path    string
	seg     *gctrace.Segment
}

// loadRuns reads every log in dir, named BENCH.gogcSETTING.rREP.log where
// SETTING is a number or off-LIMIT.
func loadRuns(t testing.TB, dir string) []run {
	files, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no logs in %s: %v", dir, err)
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
		runs = append(runs, run{bench: parts[0], setting: s, rep: rep, path: f, seg: seg})
	}
	return runs
}

// readSegment returns the test binary's segment of a log: the one with the
// most cycles.
func readSegment(t testing.TB, path string) *gctrace.Segment {
	log := readLog(t, path)
	var best *gctrace.Segment
	for _, s := range log.Segments {
		if best == nil || s.Summary.Cycles > best.Summary.Cycles {
			best = s
		}
	}
	return best
}

// readLog parses a log, keeping its cycles.
func readLog(t testing.TB, path string) *gctrace.Log {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := gctrace.Parse(f, path, gctrace.Options{KeepCycles: true})
	if err != nil {
		t.Fatal(err)
	}
	return log
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

// accuracyTable fits a model on repetition fitRep of every benchmark's
// GOGC=100 runs in dir and predicts every other setting.
func accuracyTable(t testing.TB, dir string, fitRep int) []row {
	runs := loadRuns(t, dir)
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
			i := slices.IndexFunc(g, func(r run) bool { return r.rep == fitRep })
			if i < 0 {
				t.Fatalf("%s: no GOGC=100 run r%d to fit", k.bench, fitRep)
			}
			m, err := Fit(g[i].seg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			models[k.bench] = m
			fits[k.bench] = g[i].seg
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
	fmt.Fprintf(&b, "| benchmark | setting | real cycles (min–max) | predicted (range) | error | naive | naive error | real GC CPU ms | predicted (range) | error | real peak MiB | predicted | error |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var ce, ne, pe, he []float64
	for _, r := range rows {
		fit := r.setting == Setting{GOGC: 100}
		mark := ""
		if fit {
			mark = " (fit)"
		}
		fmt.Fprintf(&b, "| %s | %s%s | %.0f (%.0f–%.0f) | %.0f (%.0f–%.0f) | %.1f%% | %.0f | %.1f%% | %.0f | %.0f (%.0f–%.0f) | %.0f%% | %.1f | %.1f | %.0f%% |\n",
			r.bench, r.setting, mark, r.realCycles, r.realMin, r.realMax,
			r.pred.Cycles.Value, r.pred.Cycles.Low, r.pred.Cycles.High, r.cycleErr()*100,
			r.naive, r.naiveErr()*100,
			r.realCPU, r.pred.GCCPUMS.Value, r.pred.GCCPUMS.Low, r.pred.GCCPUMS.High, r.cpuErr()*100,
			r.realPeak, r.pred.PeakHeap.Value/(1<<20), r.peakErr()*100)
		if !fit {
			ce = append(ce, r.cycleErr())
			ne = append(ne, r.naiveErr())
			pe = append(pe, r.cpuErr())
			he = append(he, r.peakErr())
		}
	}
	b.WriteString("\n")
	nr := nonFit(rows)
	var cycIn int
	for _, r := range nr {
		if r.realCycles >= r.pred.Cycles.Low && r.realCycles <= r.pred.Cycles.High {
			cycIn++
		}
	}
	fmt.Fprintf(&b, "cycle ranges: %d of %d hold the real median\n", cycIn, len(nr))
	c := cpuCoverage(rows)
	fmt.Fprintf(&b, "GC CPU ranges: given for %d of %d (%d widened for weak fits), %d of those hold the real median\n", c.given, len(nr), c.wide, c.in)
	for _, s := range []struct {
		name string
		errs []float64
	}{{"cycles, model", ce}, {"cycles, naive (cycles × 100/GOGC)", ne}, {"GC CPU, model", pe}, {"peak heap, model", he}} {
		med, worst := errStats(s.errs)
		fmt.Fprintf(&b, "%s: median error %.1f%%, worst %.1f%% over %d pairs\n", s.name, med*100, worst*100, len(s.errs))
	}
	return b.String()
}

// coverage counts the GC CPU ranges of the predicted rows: how many are
// given, how many of those say they are wide, and how many hold the real
// median.
type coverage struct{ given, wide, in int }

func cpuCoverage(rows []row) coverage {
	var c coverage
	for _, r := range nonFit(rows) {
		if !Valid(r.pred.GCCPUMS.Low) {
			continue
		}
		c.given++
		if slices.ContainsFunc(r.pred.Caveats, func(s string) bool { return strings.HasPrefix(s, "GC CPU range widened") }) {
			c.wide++
		}
		if r.realCPU >= r.pred.GCCPUMS.Low && r.realCPU <= r.pred.GCCPUMS.High {
			c.in++
		}
	}
	return c
}

// TestAccuracy recomputes the accuracy table from the logs in
// testdata/real and fails if the cycle-count predictions miss the targets
// (a median error above 7%, or any pair above 20%) or do not beat the naive
// rule. The table is kept in testdata/accuracy.golden (-update rewrites it)
// and copied into docs/accuracy.md and docs/pacer.md.
func TestAccuracy(t *testing.T) {
	rows := checkTable(t, filepath.Join("testdata", "real"), "accuracy.golden")
	errs := cycleErrs(rows)
	if med, _ := errStats(errs); med > targetMedianErr {
		t.Errorf("median cycle-count error %.1f%%, want ≤ %.0f%%", med*100, targetMedianErr*100)
	}
	for i, r := range nonFit(rows) {
		if errs[i] > targetWorstErr {
			t.Errorf("%s %s: cycle-count error %.1f%%, want ≤ %.0f%%", r.bench, r.setting, errs[i]*100, targetWorstErr*100)
		}
	}
}

// TestAccuracyContended does the same for the runs in testdata/contended:
// the same benchmarks recorded while other work shared the two CPUs, which
// slows the GC's marking and moves the pacer's triggers to their lower
// bound (docs/accuracy.md). The model must keep its median within the
// target and beat the naive rule there too; its worst case is recorded in
// the golden file, not held to the bound.
func TestAccuracyContended(t *testing.T) {
	rows := checkTable(t, filepath.Join("testdata", "contended"), "accuracy-contended.golden")
	med, _ := errStats(cycleErrs(rows))
	if med > targetMedianErr {
		t.Errorf("median cycle-count error %.1f%%, want ≤ %.0f%%", med*100, targetMedianErr*100)
	}
}

// checkTable computes the table for the runs in dir, fitted on the first
// repetition, compares it with the golden file and checks that the model
// beats the naive rule.
func checkTable(t *testing.T, dir, goldenName string) []row {
	t.Helper()
	rows := accuracyTable(t, dir, 1)
	table := formatTable(rows)
	golden := filepath.Join("testdata", goldenName)
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
		t.Errorf("%s changed (run go test -update and copy it to docs/accuracy.md and docs/pacer.md):\n%s", goldenName, table)
	}
	var ne []float64
	for _, r := range nonFit(rows) {
		ne = append(ne, r.naiveErr())
	}
	med, worst := errStats(cycleErrs(rows))
	nmed, nworst := errStats(ne)
	t.Logf("%s cycles: model median %.1f%% worst %.1f%%; naive median %.1f%% worst %.1f%%", dir, med*100, worst*100, nmed*100, nworst*100)
	if med >= nmed || worst >= nworst {
		t.Errorf("model (median %.1f%%, worst %.1f%%) does not beat the naive rule (%.1f%%, %.1f%%)", med*100, worst*100, nmed*100, nworst*100)
	}
	return rows
}

// nonFit returns the rows that are predictions, leaving out the GOGC=100
// rows the models were fitted on.
func nonFit(rows []row) []row {
	var out []row
	for _, r := range rows {
		if r.setting != (Setting{GOGC: 100}) {
			out = append(out, r)
		}
	}
	return out
}

func cycleErrs(rows []row) []float64 {
	var errs []float64
	for _, r := range nonFit(rows) {
		errs = append(errs, r.cycleErr())
	}
	return errs
}

// TestRecordingsQuiet checks that the runs in testdata/real were recorded
// on an otherwise idle machine: the three repetitions of each setting must
// agree on the benchmark's ns/op within a factor of 1.6. Other work on the
// CPUs slows the GC's marking more than the program, which changes where
// the pacer triggers (compare testdata/contended, whose repetitions differ
// by up to 4.6×), so a re-recording on a busy machine would measure the
// model against a different pacer.
func TestRecordingsQuiet(t *testing.T) {
	type key struct {
		bench   string
		setting Setting
	}
	nsop := map[key][]float64{}
	for _, r := range loadRuns(t, filepath.Join("testdata", "real")) {
		v, ok := benchNsPerOp(t, r.path)
		if !ok {
			t.Errorf("%s: no ns/op line", r.path)
			continue
		}
		k := key{r.bench, r.setting}
		nsop[k] = append(nsop[k], v)
	}
	for k, v := range nsop {
		if lo, hi := slices.Min(v), slices.Max(v); hi > 1.6*lo {
			t.Errorf("%s %s: ns/op ranges from %.0f to %.0f over the repetitions (%.1f×): re-record on an idle machine", k.bench, k.setting, lo, hi, hi/lo)
		}
	}
}

// benchNsPerOp returns the ns/op of the last benchmark result in a log.
func benchNsPerOp(t *testing.T, path string) (float64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, found := 0.0, false
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		for i := 1; i < len(f); i++ {
			if f[i] == "ns/op" {
				if x, err := strconv.ParseFloat(f[i-1], 64); err == nil {
					v, found = x, true
				}
			}
		}
	}
	return v, found
}

// TestGCCPUAccuracy holds the predicted GC CPU, fitted on each of the
// three GOGC=100 runs in turn, against the median of the three real runs
// of every other setting, on the idle and the contended recordings. The
// bounds are the figures the model reaches (docs/accuracy.md), rounded
// up: the test fails when a change makes them worse. The goal, a median
// error of 15%, a worst of 35% and ranges that hold 80% of the real
// medians, is met only by the coverage (docs/accuracy.md, "What remains").
func TestGCCPUAccuracy(t *testing.T) {
	tests := []struct {
		dir           string
		fitRep        int
		median, worst float64 // largest relative errors allowed
		minIn         int     // of 30 ranges, at least this many hold the real median
	}{
		{"real", 1, 0.165, 0.60, 30},
		{"real", 2, 0.20, 0.70, 28},
		{"real", 3, 0.185, 0.70, 28},
		{"contended", 1, 0.39, 4.30, 22},
		{"contended", 2, 0.33, 2.05, 23},
		{"contended", 3, 0.32, 4.35, 21},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/r%d", tt.dir, tt.fitRep), func(t *testing.T) {
			rows := accuracyTable(t, filepath.Join("testdata", tt.dir), tt.fitRep)
			var errs []float64
			for _, r := range nonFit(rows) {
				errs = append(errs, r.cpuErr())
			}
			med, worst := errStats(errs)
			c := cpuCoverage(rows)
			t.Logf("GC CPU: median error %.1f%%, worst %.1f%%; ranges given for %d of %d, %d widened, %d hold the real median", med*100, worst*100, c.given, len(errs), c.wide, c.in)
			if med > tt.median {
				t.Errorf("median GC CPU error %.1f%%, want ≤ %.1f%%", med*100, tt.median*100)
			}
			if worst > tt.worst {
				t.Errorf("worst GC CPU error %.1f%%, want ≤ %.0f%%", worst*100, tt.worst*100)
			}
			if c.in < tt.minIn {
				t.Errorf("%d GC CPU ranges hold the real median, want ≥ %d of %d", c.in, tt.minIn, len(errs))
			}
		})
	}
}

// TestGCCPURepeatability measures how far the recordings' GC CPU moves
// from one run of a setting to the next: each run's GC CPU against the
// median of the three runs of its setting (the median run itself left
// out). A model fitted on one GOGC=100 run inherits that run's distance
// from its own median, and is held against the median of runs that
// spread so themselves: these figures are the floor under the GC CPU
// errors of TestGCCPUAccuracy (docs/accuracy.md, "How far runs repeat").
// The table is kept in testdata/repeatability.golden (-update rewrites it).
func TestGCCPURepeatability(t *testing.T) {
	var b strings.Builder
	for _, dir := range []string{"real", "contended"} {
		runs := loadRuns(t, filepath.Join("testdata", dir))
		type key struct {
			bench   string
			setting Setting
		}
		groups := map[key][]float64{}
		for _, r := range runs {
			k := key{r.bench, r.setting}
			groups[k] = append(groups[k], r.seg.Summary.GCCPUMS)
		}
		var all, fit []float64
		worst, worstAt := 0.0, ""
		for k, v := range groups {
			med := medianOf(v)
			skipped := false
			for _, x := range v {
				if x == med && !skipped {
					skipped = true
					continue
				}
				e := relErr(x, med)
				all = append(all, e)
				if k.setting == (Setting{GOGC: 100}) {
					fit = append(fit, e)
				}
				if e > worst {
					worst, worstAt = e, fmt.Sprintf("%s at %v", k.bench, k.setting)
				}
			}
		}
		am, aw := errStats(all)
		fm, fw := errStats(fit)
		fmt.Fprintf(&b, "%s: a run against the median of its setting's three, %d runs: median %.1f%%, worst %.1f%% (%s); GOGC=100 runs alone: median %.1f%%, worst %.1f%%\n",
			dir, len(all), am*100, aw*100, worstAt, fm*100, fw*100)
	}
	checkGolden(t, "repeatability.golden", b.String())
}

// TestHeldOut holds the model to a workload it was not built around
// (testdata/heldout: a cache of about 100 MiB live with request garbage
// flowing past it, HELDOUT=1 sh gen.sh), fitted on each of its three
// GOGC=100 runs in turn: cycles within the targets TestAccuracy holds the
// standard-library benchmarks to, and GC CPU within the bounds it reaches
// (docs/accuracy.md, "A held-out workload"). The table is kept in
// testdata/heldout.golden (-update rewrites it).
func TestHeldOut(t *testing.T) {
	var b strings.Builder
	for rep := 1; rep <= 3; rep++ {
		rows := accuracyTable(t, filepath.Join("testdata", "heldout"), rep)
		if rep == 1 {
			b.WriteString(formatTable(rows))
		}
		cyc, cpu := cycleErrs(nonFit(rows)), []float64{}
		for _, r := range nonFit(rows) {
			cpu = append(cpu, r.cpuErr())
		}
		cm, cw := errStats(cyc)
		pm, pw := errStats(cpu)
		c := cpuCoverage(rows)
		fmt.Fprintf(&b, "\nfitted on run %d: cycles median %.1f%%, worst %.1f%%; GC CPU median %.1f%%, worst %.1f%%, %d of %d ranges hold the real median\n",
			rep, cm*100, cw*100, pm*100, pw*100, c.in, len(cpu))
		if cm > targetMedianErr || cw > targetWorstErr {
			t.Errorf("run %d: cycle errors median %.1f%%, worst %.1f%%; want ≤ %.0f%%, ≤ %.0f%%", rep, cm*100, cw*100, targetMedianErr*100, targetWorstErr*100)
		}
	}
	checkGolden(t, "heldout.golden", b.String())
}

// checkGolden compares got with testdata/name, which -update rewrites; the
// figures in docs/accuracy.md are copied from these files.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s changed (go test -update, then copy it to docs/accuracy.md):\n%s", name, got)
	}
}

// TestHeldOutScan checks what docs/accuracy.md says of the held-out
// workload's GC CPU at large runways from two GODEBUG=gctrace=2 runs of it
// (testdata/scan, GOGC=100 and 800): its marks scan the same objects at
// both settings (its 100,000 cached values are []byte, marked but never
// scanned), so the cost that grows with the runway is not scanning. What
// grows is the time the background workers are charged: a cycle's mark
// runs longer, past the scheduler's 10 ms time slice, and the worker gets
// the busy P's share too.
func TestHeldOutScan(t *testing.T) {
	type fig struct{ objects, background, markWall float64 }
	read := func(gogc int) fig {
		seg := readSegment(t, filepath.Join("testdata", "scan", fmt.Sprintf("cache.gogc%d.log", gogc)))
		var f fig
		n := 0
		for _, c := range seg.Cycles {
			// The forced cycles at start-up and the one that finds the
			// cache half built mark another heap.
			if c.Forced || c.HeapLive < 100 {
				continue
			}
			if !c.HasScan {
				t.Fatalf("GOGC=%d: line %d has no scan: line", gogc, c.Line)
			}
			f.objects += float64(c.Scan.Objects)
			f.background += c.CPU.Background
			f.markWall += c.Clock.Mark
			n++
		}
		if n < 3 {
			t.Fatalf("GOGC=%d: %d cycles with the cache built", gogc, n)
		}
		return fig{f.objects / float64(n), f.background / float64(n), f.markWall / float64(n)}
	}
	a, b := read(100), read(800)
	t.Logf("per cycle, GOGC=100 against 800: %.0f and %.0f objects scanned, background %.2f and %.2f ms, mark %.1f and %.1f ms", a.objects, b.objects, a.background, b.background, a.markWall, b.markWall)
	if relDiff(b.objects, a.objects) > 0.1 {
		t.Errorf("objects scanned per cycle: %.0f at GOGC=800, %.0f at 100; want within 10%%", b.objects, a.objects)
	}
	if b.background < 1.5*a.background || b.markWall < a.markWall {
		t.Errorf("background CPU per cycle %.2f ms at GOGC=800 against %.2f at 100, mark %.1f against %.1f ms: want 1.5 times the background CPU and a longer mark", b.background, a.background, b.markWall, a.markWall)
	}
}

// TestGCCPUCostPerCycle measures how far a GOGC=100 run's cost per cycle
// carries to the other settings, apart from the cycle count: every real
// cycle of a setting is costed at the mean GC CPU of the fitting run's
// paced cycles and the total held against the real median, as if the
// model had predicted every cycle count exactly. These errors come from
// the cost of a cycle changing with the setting while the heap scanned
// does not (docs/accuracy.md, "What remains"): a model that prices
// cycles from the one log cannot do better. The table is kept in
// testdata/costpercycle.golden (-update rewrites it).
func TestGCCPUCostPerCycle(t *testing.T) {
	var b strings.Builder
	for _, dir := range []string{"real", "heldout"} {
		runs := loadRuns(t, filepath.Join("testdata", dir))
		for rep := 1; rep <= 3; rep++ {
			cost := map[string]float64{}
			for _, r := range runs {
				if r.setting != (Setting{GOGC: 100}) || r.rep != rep {
					continue
				}
				var sum float64
				n := 0
				for _, c := range r.seg.Cycles {
					if !c.Forced {
						sum += c.GCCPU()
						n++
					}
				}
				cost[r.bench] = sum / float64(max(n, 1))
			}
			var errs []float64
			for _, row := range nonFit(accuracyTable(t, filepath.Join("testdata", dir), rep)) {
				errs = append(errs, relErr(row.realCycles*cost[row.bench], row.realCPU))
			}
			med, worst := errStats(errs)
			fmt.Fprintf(&b, "%s, fitted on run %d: real cycles × the fitting run's mean cost per paced cycle: median %.1f%%, worst %.1f%% over %d pairs\n",
				dir, rep, med*100, worst*100, len(errs))
		}
	}
	checkGolden(t, "costpercycle.golden", b.String())
}
