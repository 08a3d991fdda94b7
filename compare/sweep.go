package compare

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/goversion"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// DefaultCount is how many times Sweep runs the program under each setting
// when SweepSpec.Count is zero: five runs a side is the fewest with which
// the U test can find a difference significant with room to spare (four
// is the bare minimum at p < 0.05).
const DefaultCount = 5

// SweepSpec describes a program to run under several GC settings.
type SweepSpec struct {
	// Path and Args are the program and its arguments, as for collect.Spec.
	Path string
	Args []string
	// Env is the program's environment; nil means os.Environ(). GOGC and
	// GOMEMLIMIT are replaced by each setting's (an inherited GOMEMLIMIT is
	// removed for settings without a limit), and collect adds gctrace=1
	// to GODEBUG.
	Env []string
	// Dir is the program's working directory; "" means the current one.
	Dir string
	// Settings are the GC settings to compare; the first is the baseline.
	Settings []pacer.Setting
	// Count is the number of runs per setting; zero means DefaultCount.
	Count int
	// Stdout and Stderr receive the program's output; nil discards it.
	Stdout, Stderr io.Writer
	// Progress, when set, is called before each run with the number of
	// runs done, the total and the setting about to run.
	Progress func(done, total int, s pacer.Setting)
	// ToolVersion is recorded in each run's metadata.
	ToolVersion string
}

// SweepResult holds the runs of a sweep.
type SweepResult struct {
	Command  []string
	Settings []pacer.Setting
	// Runs holds, per setting, the figures of each run in the order run.
	Runs      [][]Run
	GoVersion string // the Go version that built the program, if known
	// Model is fitted from the first run of the baseline setting; nil when
	// it could not be, and ModelErr says why.
	Model    *pacer.Model
	ModelErr error
	// CPUMeasured reports whether the runs' CPU time could be measured.
	CPUMeasured bool
	// Failures lists the runs that failed; a setting whose run failed is
	// not run again, and the others go on.
	Failures []Failure
}

// Failure is a run that failed: a non-zero exit, or no GC cycle.
type Failure struct {
	Setting pacer.Setting
	Run     int // 1-based
	Err     error
}

func (f Failure) Error() string {
	return fmt.Sprintf("%s, run %d: %v", SettingLabel(f.Setting), f.Run, f.Err)
}

// SettingLabel names a setting as its environment does: "GOGC=50",
// "GOGC=off GOMEMLIMIT=48MiB".
func SettingLabel(s pacer.Setting) string {
	l := "GOGC=" + gogcString(s.GOGC)
	if s.MemoryLimit > 0 {
		l += " GOMEMLIMIT=" + pacer.GOMEMLIMIT(s.MemoryLimit)
	}
	return l
}

func gogcString(v int) string {
	if v < 0 {
		return "off"
	}
	return strconv.Itoa(v)
}

// SettingEnv returns env with GOGC and GOMEMLIMIT set to s.
func SettingEnv(env []string, s pacer.Setting) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "GOMEMLIMIT=") {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "GOGC="+gogcString(s.GOGC))
	if s.MemoryLimit > 0 {
		out = append(out, "GOMEMLIMIT="+pacer.GOMEMLIMIT(s.MemoryLimit))
	}
	return out
}

// Sweep runs the program Count times under each setting and measures every
// run: wall time, CPU time, peak RSS and the GC figures of its gctrace.
// The settings are interleaved (A B C A B C …) rather than run in blocks,
// so that a drift of the machine (thermal throttling, a noisy neighbour)
// touches every setting alike instead of biasing the comparison.
//
// A run that fails (non-zero exit, no GC cycle) is recorded in Failures with
// its exit status and last line of output, and its setting is not run
// again: figures from a failing program compare nothing, but the other
// settings still do. Sweep returns an error only when every setting failed.
func Sweep(ctx context.Context, s SweepSpec) (*SweepResult, error) {
	if len(s.Settings) == 0 {
		return nil, errors.New("no settings to compare")
	}
	count := s.Count
	if count <= 0 {
		count = DefaultCount
	}
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	res := &SweepResult{Command: append([]string{s.Path}, s.Args...), Settings: s.Settings,
		Runs: make([][]Run, len(s.Settings)), CPUMeasured: true}
	total := count * len(s.Settings)
	done := 0
	failed := make([]bool, len(s.Settings))
	for rep := range count {
		for i, set := range s.Settings {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if failed[i] {
				done++
				continue
			}
			if s.Progress != nil {
				s.Progress(done, total, set)
			}
			// The model is fitted from the baseline's first run, which is
			// the only one whose cycles need keeping.
			fit := rep == 0 && i == 0
			r, err := s.runOnce(ctx, env, set, fit, res)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				failed[i] = true
				res.Failures = append(res.Failures, Failure{Setting: set, Run: rep + 1, Err: err})
				done++
				continue
			}
			res.CPUMeasured = res.CPUMeasured && !isNaN(r.CPUS)
			res.Runs[i] = append(res.Runs[i], r)
			done++
		}
	}
	if s.Progress != nil {
		s.Progress(done, total, s.Settings[len(s.Settings)-1])
	}
	if len(res.Failures) == len(s.Settings) {
		return nil, res.Failures[0]
	}
	return res, nil
}

func isNaN(v float64) bool { return v != v }

// runOnce runs the program once under set and measures it; with fit it
// also fits res.Model from the run.
func (s *SweepSpec) runOnce(ctx context.Context, env []string, set pacer.Setting, fit bool, res *SweepResult) (Run, error) {
	cpu0, cpuOK := childrenCPU()
	cr, err := collect.Run(ctx, collect.Spec{
		Path: s.Path, Args: s.Args, Env: SettingEnv(env, set), Dir: s.Dir,
		Stdout: s.Stdout, Stderr: s.Stderr, ToolVersion: s.ToolVersion,
	})
	cpu1, cpuOK1 := childrenCPU()
	if cr == nil {
		return Run{}, err
	}
	defer cr.Cleanup()
	if err != nil {
		return Run{}, err
	}
	if cr.ExitCode != 0 {
		msg := fmt.Sprintf("exit status %d", cr.ExitCode)
		if last := lastOutputLine(cr.GCTracePath); last != "" {
			msg += ": " + last
		}
		return Run{}, errors.New(msg)
	}
	if res.GoVersion == "" {
		res.GoVersion = cr.GoVersion
	}
	f, err := os.Open(cr.GCTracePath)
	if err != nil {
		return Run{}, err
	}
	defer f.Close()
	log, err := gctrace.Parse(f, "gctrace.log", gctrace.Options{GOGC: max(set.GOGC, 0), KeepCycles: fit})
	if err != nil {
		if errors.Is(err, gctrace.ErrNoCycles) {
			return Run{}, errors.New("no GC cycle in its output: not a Go program, or it exited before its first collection")
		}
		return Run{}, err
	}
	r := RunFromLog(log)
	r.WallS = cr.Duration.Seconds()
	if cr.PeakRSS > 0 {
		r.PeakRSS = float64(cr.PeakRSS)
	}
	if cpuOK && cpuOK1 {
		r.CPUS = cpu1 - cpu0
	}
	if fit {
		res.Model, res.ModelErr = fitModel(log, set, cr)
	}
	return r, nil
}

// fitModel fits the pacer model to the process with the most cycles.
func fitModel(log *gctrace.Log, set pacer.Setting, cr *collect.Result) (*pacer.Model, error) {
	var seg *gctrace.Segment
	for _, s := range log.Segments {
		if seg == nil || s.Summary.Cycles > seg.Summary.Cycles {
			seg = s
		}
	}
	if seg == nil {
		return nil, gctrace.ErrNoCycles
	}
	return pacer.Fit(seg, pacer.Options{GOGC: set.GOGC, MemoryLimit: set.MemoryLimit,
		GoMinor: goversion.Minor(cr.GoVersion), RSS: cr.PeakRSS})
}

// lastOutputLine returns the last line of the program's standard error
// that is not a gctrace line: usually why it failed.
func lastOutputLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var last string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "gc ") || strings.HasPrefix(l, "scvg") || strings.HasPrefix(l, "scav") || gcFragment(l) {
			continue
		}
		last = l
	}
	if len(last) > 200 {
		last = last[:200] + "…"
	}
	return last
}

// gcFragment reports whether a line is a piece of a gctrace line: the
// runtime prints a line in several writes, and a program that exits while
// the collector prints leaves the tail ("MB, 4 MB goal, …, 2 P") on a line
// of its own, or the program's own message cuts a gc line in two.
func gcFragment(l string) bool {
	for _, m := range []string{"MB goal", "MB stacks", "ms clock", "ms cpu", "MB, ", " P (forced)", "s 0%", "%: "} {
		if strings.Contains(l, m) {
			return true
		}
	}
	return strings.HasSuffix(l, " P") || strings.HasSuffix(l, "MB") || strings.HasSuffix(l, " MB,")
}

// Table returns the sweep as a comparison table: a row per figure, a
// column per setting, the first setting the baseline, with the model's
// predictions beside the measurements.
func (r *SweepResult) Table() *Table {
	t := &Table{Kind: "sweep", Command: r.Command, Settings: r.Settings}
	t.Title = "sweep of " + strings.Join(r.Command, " ")
	for _, s := range r.Settings {
		t.Columns = append(t.Columns, SettingLabel(s))
	}
	t.addRunRows("", r.Runs)
	n := 0
	if len(r.Runs) > 0 {
		n = len(r.Runs[0])
	}
	if len(r.Settings) > 1 {
		t.Notes = append(t.Notes, fmt.Sprintf("Each setting ran %d times, the settings interleaved so that a drift of the machine affects them alike.", n))
	}
	if !r.CPUMeasured {
		t.Notes = append(t.Notes, "CPU time could not be measured on this system.")
	} else {
		t.Notes = append(t.Notes, "CPU time is user plus system time of the program and the processes it waited for.")
	}
	t.addPredictions(r.Model, r.ModelErr)
	return t
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
			t.Notes = append(t.Notes, "No predictions: the pacer model could not be fitted from the first run of "+SettingLabel(t.Settings[0])+": "+modelErr.Error())
		}
		return
	}
	t.Notes = append(t.Notes, "predicted: what the pacer model (as in gcdoctor whatif) fitted from the first run of "+SettingLabel(t.Settings[0])+" expects for the same work, its likely range in brackets.")
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
