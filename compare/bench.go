package compare

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// BenchRuns holds the runs of a package's benchmarks under several GC
// settings, and compares the settings.
type BenchRuns struct {
	Target  string   // the package, or the prebuilt test binary
	Command []string // the test binary and its flags, as run
	// Settings are the GC settings of each column.
	Settings []pacer.Setting
	// Experiments are the GOEXPERIMENT values of each column, nil when the
	// runs compare none (see NewBenchRuns).
	Experiments []string
	// Bench holds, per setting, the benchmark results of every run.
	Bench []*BenchSet
	// Runs holds, per setting, the figures of each test binary run: the
	// GC figures cover every benchmark the run executed.
	Runs [][]Run
	// FixedWork reports whether the runs did a fixed number of iterations
	// (-benchtime=Nx), so that GC counts compare across settings.
	FixedWork bool
	// Model is the pacer model fitted from the first run of the first
	// setting, for the predictions beside the GC figures; nil when it
	// could not be fitted, and ModelErr says why.
	Model    *pacer.Model
	ModelErr error

	count   int    // runs per setting, for naming a run in errors
	pattern string // the -test.bench pattern, for saying that nothing matched
	perExp  int    // settings per GOEXPERIMENT value
}

// NewBenchRuns returns an empty BenchRuns for the benchmarks of target
// that match pattern, run count times under each of settings (the first
// the baseline); fixedWork says whether every run did the same number of
// iterations. With experiments, the test binary was built once per
// GOEXPERIMENT value, and every setting ran with each build: a column per
// value and setting, numbered as Column numbers them.
func NewBenchRuns(target, pattern string, settings []pacer.Setting, count int, fixedWork bool, experiments ...string) *BenchRuns {
	sets, exps := columns(settings, experiments)
	r := &BenchRuns{Target: target, Settings: sets, Experiments: exps, Runs: make([][]Run, len(sets)),
		FixedWork: fixedWork, count: count, pattern: pattern, perExp: len(settings)}
	for range sets {
		r.Bench = append(r.Bench, NewBenchSet())
	}
	return r
}

// Column returns the column of the runs of the experiment-th GOEXPERIMENT
// value (0 without them) under the setting-th setting.
func (r *BenchRuns) Column(experiment, setting int) int { return experiment*r.perExp + setting }

// Add reads a run of the test binary in column i: its benchmark
// results (sec/op, B/op, allocs/op and any custom unit) and the GC
// figures of its gctrace, and from the first run of the baseline the
// pacer model. A run whose output holds no benchmark result is an error:
// the pattern matched nothing.
func (r *BenchRuns) Add(i int, m Measured) error {
	if i < 0 || i >= len(r.Settings) {
		return fmt.Errorf("no setting %d among %d", i, len(r.Settings))
	}
	set := r.Settings[i]
	fit := i == 0 && len(r.Runs[0]) == 0
	named := func(err error) error {
		return fmt.Errorf("%s, run %d of %d: %w", columnLabel(r.Settings, r.Experiments, i), len(r.Runs[i])+1, r.count, err)
	}
	n, err := r.addOutput(i, m.OutputPath)
	if err != nil {
		return named(err)
	}
	// A benchmark that allocates nothing may never collect: that leaves
	// its GC figures unknown, not the run failed.
	log, err := m.parseGCTrace(set, fit)
	if errors.Is(err, gctrace.ErrNoCycles) {
		log, err = nil, nil
	}
	if err != nil {
		return named(err)
	}
	if fit {
		if log != nil {
			r.Model, r.ModelErr = fitModel(log, set, &m)
		} else {
			r.ModelErr = gctrace.ErrNoCycles
		}
	}
	if n == 0 {
		return fmt.Errorf("no benchmark matches %q", r.pattern)
	}
	r.Runs[i] = append(r.Runs[i], m.run(log))
	return nil
}

// addOutput reads the benchmark results of a run under setting i and
// returns how many result lines it held.
func (r *BenchRuns) addOutput(i int, path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return r.Bench[i].Add(f, "stdout")
}

// Table returns the benchmark comparison: per unit and benchmark a row
// with a column per setting, then the GC figures of the test binary runs.
func (r *BenchRuns) Table() *Table {
	t := &Table{Kind: "bench", Command: r.Command, Settings: r.Settings}
	// The test binary of a package is a temporary file: the package
	// names it better.
	t.Title = "bench " + r.Target
	if len(r.Command) > 1 {
		t.Title += " " + strings.Join(r.Command[1:], " ")
	}
	for i := range r.Settings {
		t.Columns = append(t.Columns, columnLabel(r.Settings, r.Experiments, i))
	}
	t.addBenchRows(r.Bench)
	t.addRunRows("", r.Runs)
	t.experimentNotes(r.Experiments)
	t.Caveats = append(t.Caveats, "The per run figures (wall time, peak RSS and GC) cover a whole run of the test binary: every benchmark it ran, with the testing package's own collections.")
	if !r.FixedWork {
		t.Caveats = append(t.Caveats, "Each run chose its own iteration counts, so GC counts do not compare across settings, and the pacer model, which predicts the same work under another setting, has nothing to say; -benchtime=Nx fixes both.")
		return t
	}
	t.addPredictions(r.Model, r.ModelErr)
	t.dropOtherExperiments(r.Experiments)
	return t
}
