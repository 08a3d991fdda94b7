package compare

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/goversion"
	"github.com/gcdoctor/gcdoctor/internal/plural"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// Measured is what was gathered from one run of a program, by package
// collect or any other way: compare reads it and runs nothing itself.
type Measured struct {
	// GCTracePath is the file holding the program's standard error, with
	// its GODEBUG=gctrace=1 lines.
	GCTracePath string
	// OutputPath is the file holding a test binary's standard output,
	// with its benchmark results; "" for a program that runs no
	// benchmarks.
	OutputPath string
	Wall       time.Duration // how long the program ran
	// CPU is the user plus system CPU time of the program and of the
	// processes it waited for; negative when it is not known.
	CPU       time.Duration
	PeakRSS   int64  // bytes; 0 when not known
	GoVersion string // the Go version that built the program; "" when not known
}

// run returns the figures of m whose gctrace parsed as log.
func (m *Measured) run(log *gctrace.Log) Run {
	r := unknownRun()
	if log != nil {
		r = RunFromLog(log)
	}
	r.WallS = m.Wall.Seconds()
	if m.PeakRSS > 0 {
		r.PeakRSS = float64(m.PeakRSS)
	}
	if m.CPU >= 0 {
		r.CPUS = m.CPU.Seconds()
	}
	return r
}

// parseGCTrace parses the gctrace of a run under set, keeping its cycles
// when keep is set, for a model to be fitted from them.
func (m *Measured) parseGCTrace(set pacer.Setting, keep bool) (*gctrace.Log, error) {
	f, err := os.Open(m.GCTracePath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return gctrace.Parse(f, "gctrace.log", gctrace.Options{GOGC: max(set.GOGC, 0), KeepCycles: keep})
}

// SweepRuns holds the runs of a program under several GC settings, and
// compares the settings.
type SweepRuns struct {
	Command []string
	// Settings are the GC settings of each column.
	Settings []pacer.Setting
	// Experiments are the GOEXPERIMENT values of each column, nil when the
	// runs compare none (see NewSweepRuns).
	Experiments []string
	// Runs holds, per setting, the figures of each run in the order run.
	Runs      [][]Run
	GoVersion string // the Go version that built the program, if known
	// Model is fitted from the first run of the baseline setting; nil when
	// it could not be, and ModelErr says why.
	Model    *pacer.Model
	ModelErr error

	// Labels name the columns of runs that differ in the program rather
	// than in its GC setting (NewVariantRuns); nil for a sweep of
	// settings.
	Labels []string

	fitTried bool
	perExp   int    // settings per GOEXPERIMENT value
	kind     string // the Table's Kind
}

// NewSweepRuns returns an empty SweepRuns for a command run under
// settings, the first the baseline. With experiments, the program was
// built once per GOEXPERIMENT value, and every setting ran with each
// build: a column per value and setting, numbered as Column numbers them.
func NewSweepRuns(command []string, settings []pacer.Setting, experiments ...string) *SweepRuns {
	sets, exps := columns(settings, experiments)
	return &SweepRuns{Command: command, Settings: sets, Experiments: exps, Runs: make([][]Run, len(sets)), perExp: len(settings)}
}

// NewVariantRuns returns an empty SweepRuns for a command run in several
// variants, the columns labelled by labels, the first the baseline, all
// under the GC setting set. kind is the Table's Kind ("workers"). No
// pacer model is fitted: the columns differ in what the program does,
// not in how its garbage is collected, so the model's predictions would
// be alike for all of them.
func NewVariantRuns(kind string, command, labels []string, set pacer.Setting) *SweepRuns {
	sets := make([]pacer.Setting, len(labels))
	for i := range sets {
		sets[i] = set
	}
	return &SweepRuns{Command: command, Settings: sets, Labels: labels, Runs: make([][]Run, len(labels)),
		perExp: len(labels), fitTried: true, kind: kind}
}

// Column returns the column of the runs of the experiment-th GOEXPERIMENT
// value (0 without them) under the setting-th setting.
func (r *SweepRuns) Column(experiment, setting int) int { return experiment*r.perExp + setting }

// Add reads a run in column i: its GC figures from its gctrace, and
// from the first run of the baseline the pacer model. A run without a GC
// cycle is an error, as is a gctrace that cannot be read: such a run
// compares nothing. Runs of variants (NewVariantRuns) are kept without a
// GC cycle, their GC figures unknown: their times still compare.
func (r *SweepRuns) Add(i int, m Measured) error {
	if i < 0 || i >= len(r.Settings) {
		return fmt.Errorf("no setting %d among %d", i, len(r.Settings))
	}
	if r.GoVersion == "" {
		r.GoVersion = m.GoVersion
	}
	// The model is fitted from the baseline's first run, which is the
	// only one whose cycles need keeping.
	fit := i == 0 && !r.fitTried
	set := r.Settings[i]
	log, err := m.parseGCTrace(set, fit)
	if err != nil {
		if errors.Is(err, gctrace.ErrNoCycles) && r.Labels != nil {
			// Variants compare the program's time first: a run too
			// short or too frugal to collect still has it.
			r.Runs[i] = append(r.Runs[i], m.run(nil))
			return nil
		}
		if errors.Is(err, gctrace.ErrNoCycles) {
			return errors.New("no GC cycle in its output: not a Go program, or it exited before its first collection")
		}
		return err
	}
	if fit {
		r.fitTried = true
		r.Model, r.ModelErr = fitModel(log, set, &m)
	}
	r.Runs[i] = append(r.Runs[i], m.run(log))
	return nil
}

// fitModel fits the pacer model to the busiest process, the one whose
// figures RunFromLog measures.
func fitModel(log *gctrace.Log, set pacer.Setting, m *Measured) (*pacer.Model, error) {
	seg := log.Busiest()
	if seg == nil {
		return nil, gctrace.ErrNoCycles
	}
	return pacer.Fit(seg, pacer.Options{GOGC: set.GOGC, MemoryLimit: set.MemoryLimit,
		GoMinor: goversion.Minor(m.GoVersion), RSS: m.PeakRSS})
}

// cpuMeasured reports whether every run's CPU time is known.
func cpuMeasured(cols [][]Run) bool {
	for _, runs := range cols {
		for _, r := range runs {
			if math.IsNaN(r.CPUS) {
				return false
			}
		}
	}
	return true
}

// Table returns the sweep as a comparison table: a row per figure, a
// column per setting, the first setting the baseline, with the model's
// predictions beside the measurements.
func (r *SweepRuns) Table() *Table {
	if r.Labels != nil {
		return r.variantTable()
	}
	t := &Table{Kind: "sweep", Command: r.Command, Settings: r.Settings}
	t.Title = "sweep of " + strings.Join(r.Command, " ")
	for i := range r.Settings {
		t.Columns = append(t.Columns, columnLabel(r.Settings, r.Experiments, i))
	}
	t.addRunRows("", r.Runs)
	t.experimentNotes(r.Experiments)
	n := 0
	if len(r.Runs) > 0 {
		n = len(r.Runs[0])
	}
	if len(r.Settings) > 1 {
		t.Caveats = append(t.Caveats, fmt.Sprintf("Each setting ran %s, the settings interleaved so that a drift of the machine affects them alike.", plural.Count(n, "time", "times")))
	}
	t.cpuNote(r.Runs)
	t.addPredictions(r.Model, r.ModelErr)
	t.dropOtherExperiments(r.Experiments)
	return t
}

// variantTable is Table for runs of variants: no settings, no model.
func (r *SweepRuns) variantTable() *Table {
	t := &Table{Kind: r.kind, Command: r.Command, Columns: r.Labels, ModelColumn: -1}
	t.Title = r.kind + ": " + strings.Join(r.Command, " ")
	t.addRunRows("", r.Runs)
	n := 0
	if len(r.Runs) > 0 {
		n = len(r.Runs[0])
	}
	t.Caveats = append(t.Caveats, fmt.Sprintf("Each column ran %s, the columns interleaved so that a drift of the machine affects them alike; all under %s.",
		plural.Count(n, "time", "times"), r.Settings[0]))
	if t.Find("", MetricGCCount.Name) == nil {
		t.Caveats = append(t.Caveats, "No run had a GC cycle: the program allocated too little for the collector to run, so only its time and memory compare.")
	}
	t.cpuNote(r.Runs)
	return t
}

// cpuNote says how CPU time was measured, or that it was not.
func (t *Table) cpuNote(cols [][]Run) {
	if !cpuMeasured(cols) {
		t.Caveats = append(t.Caveats, "CPU time could not be measured on this system.")
	} else {
		t.Caveats = append(t.Caveats, "CPU time is user plus system time of the program and the processes it waited for.")
	}
}

// addPredictions puts the pacer model's predictions for each column's
// setting beside the measured GC figures of whole runs. The model was
// fitted from the first run of the first setting; with none, modelErr
// says why in a note.
func (t *Table) addPredictions(m *pacer.Model, modelErr error) {
	t.Model = m
	if m == nil {
		if modelErr != nil {
			t.ModelErr = modelErr.Error()
			t.Caveats = append(t.Caveats, "No predictions: the pacer model could not be fitted from the first run of "+t.Settings[0].String()+": "+modelErr.Error())
		}
		return
	}
	t.Caveats = append(t.Caveats, "predicted: what the pacer model (as in gcdoctor whatif) fitted from the first run of "+t.Settings[0].String()+" expects for the same work, its likely range in brackets.")
	t.Caveats = append(t.Caveats, replayNote(m, t.Settings[0]))
	for _, why := range []string{m.GCCPURangeWithheld(), m.GCCPURangeWide()} {
		if why != "" {
			t.Caveats = append(t.Caveats, capitalize(why)+".")
		}
	}
	for i, s := range t.Settings {
		p := m.Predict(s)
		set := func(metric Metric, v pacer.Range) {
			if row := t.Find("", metric.Name); row != nil && pacer.Valid(v.Value) {
				row.Cells[i].Predicted = &v
			}
		}
		scale := func(v pacer.Range, k float64) pacer.Range {
			return pacer.Range{Value: v.Value * k, Low: v.Low * k, High: v.High * k}
		}
		set(MetricGCCount, p.Cycles)
		set(MetricGCCPU, scale(p.GCCPUFraction, 100))
		set(MetricPeakHeap, scale(p.PeakHeap, 1.0/(1<<20)))
		set(MetricPeakRSS, p.RSS)
	}
}

// replayNote holds the model's replay of the setting it was fitted on
// against the run it was fitted on: the same process and the same
// definition of GC CPU (pacer.GCCPUFraction), so the two agree when the
// model captured the run; the other runs of that setting differ from it
// by run-to-run noise.
func replayNote(m *pacer.Model, fitted pacer.Setting) string {
	got, logged := m.CPUShare(m.ReplayCPUMS)*100, m.CPUShare(m.LoggedCPUMS())*100
	s := fmt.Sprintf("The run of %s the model was fitted on had %d GC cycles and %.3g%% GC CPU; replaying that setting the model gives %.0f and %.3g%%", fitted, m.Cycles, logged, m.ReplayCycles, got)
	if !m.Reproduces() {
		return s + ": it does not reproduce the run it was fitted on, so its ranges of GC count and GC CPU are withheld and its predictions are doubtful."
	}
	return s + ". The other runs of that setting differ from it by run-to-run noise."
}

// capitalize returns s with its first letter in upper case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
