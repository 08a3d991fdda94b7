package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// DefaultBenchCount is the number of runs per setting Bench makes when
// BenchSpec.Count is zero: benchstat's advice of at least six, the fewest
// that give a 95% confidence interval of the median.
const DefaultBenchCount = 6

// BenchSpec describes benchmarks to run under several GC settings.
type BenchSpec struct {
	// Pkg is the package whose benchmarks run, as the go command names it
	// ("./codec", "encoding/json"). It is compiled once with go test -c
	// and its test binary runs in the package's directory, as go test
	// runs it, so that benchmarks find their testdata.
	Pkg string
	// Binary is a test binary built beforehand (go test -c), used instead
	// of Pkg; it runs in Dir.
	Binary string
	// Dir is the working directory of a prebuilt Binary; "" means the
	// current one.
	Dir string
	// Bench is the -test.bench pattern; "" means "." (every benchmark).
	Bench string
	// Benchtime is the -test.benchtime value; "" leaves the default (1s).
	// A fixed iteration count such as "500x" makes every run do the same
	// work, so that GC counts compare across settings.
	Benchtime string
	// TestArgs are further flags for the test binary, such as
	// "-test.cpu=1".
	TestArgs []string
	// Settings are the GC settings to compare; the first is the baseline.
	Settings []pacer.Setting
	// Count is the number of runs per setting; zero means
	// DefaultBenchCount. Each run is one process running every matching
	// benchmark once (-test.count=1), the settings interleaved.
	Count int
	// Env is the environment; nil means os.Environ(). GOGC and GOMEMLIMIT
	// are set per setting as in SweepSpec.
	Env []string
	// Stderr receives the output of the go command that builds the test
	// binary and the test binary's standard error; nil discards them.
	Stderr io.Writer
	// Progress, when set, is called before each run.
	Progress func(done, total int, s pacer.Setting)
	// ToolVersion is recorded in each run's metadata.
	ToolVersion string
}

// BenchRuns holds the results of Bench.
type BenchRuns struct {
	Target   string   // the package, or the prebuilt test binary
	Command  []string // the test binary and its flags, as run
	Settings []pacer.Setting
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
}

// Bench builds the package's test binary once, then runs its benchmarks
// Count times under each setting, interleaved as Sweep interleaves runs,
// and gathers the benchmark results (sec/op, B/op, allocs/op and any
// custom unit) with the GC figures of each run.
func Bench(ctx context.Context, s BenchSpec) (*BenchRuns, error) {
	if len(s.Settings) == 0 {
		return nil, errors.New("no settings to compare")
	}
	count := s.Count
	if count <= 0 {
		count = DefaultBenchCount
	}
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	stderr := s.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	bin, dir := s.Binary, s.Dir
	if bin == "" {
		tmp, err := os.MkdirTemp("", "gcdoctor-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		if bin, dir, err = buildTestBinary(ctx, s.Pkg, tmp, env, stderr); err != nil {
			return nil, err
		}
	}
	bench := s.Bench
	if bench == "" {
		bench = "."
	}
	args := []string{"-test.run=^$", "-test.bench=" + bench, "-test.count=1", "-test.benchmem"}
	if s.Benchtime != "" {
		args = append(args, "-test.benchtime="+s.Benchtime)
	}
	args = append(args, s.TestArgs...)
	target := s.Pkg
	if s.Binary != "" {
		target = s.Binary
	}
	res := &BenchRuns{Target: target, Command: append([]string{bin}, args...), Settings: s.Settings,
		Runs: make([][]Run, len(s.Settings)), FixedWork: strings.HasSuffix(s.Benchtime, "x")}
	for range s.Settings {
		res.Bench = append(res.Bench, NewBenchSet())
	}
	total := count * len(s.Settings)
	done := 0
	for rep := range count {
		for i, set := range s.Settings {
			if s.Progress != nil {
				s.Progress(done, total, set)
			}
			var out bytes.Buffer
			cpu0, ok0 := childrenCPU()
			cr, err := collect.Run(ctx, collect.Spec{Path: bin, Args: args, Env: SettingEnv(env, set), Dir: dir,
				Stdout: &out, Stderr: stderr, ToolVersion: s.ToolVersion})
			if cr == nil {
				return nil, err
			}
			cpu1, ok1 := childrenCPU()
			fit := rep == 0 && i == 0
			r, n, log, err := benchRun(cr, err, &out, res.Bench[i], set, fit)
			if fit && err == nil {
				if log != nil {
					res.Model, res.ModelErr = fitModel(log, set, cr)
				} else {
					res.ModelErr = gctrace.ErrNoCycles
				}
			}
			cr.Cleanup()
			if ok0 && ok1 {
				r.CPUS = cpu1 - cpu0
			}
			if err != nil {
				return nil, fmt.Errorf("%s, run %d of %d: %w", SettingLabel(set), rep+1, count, err)
			}
			if n == 0 {
				return nil, fmt.Errorf("no benchmark matches %q", bench)
			}
			res.Runs[i] = append(res.Runs[i], r)
			done++
		}
	}
	if s.Progress != nil {
		s.Progress(done, total, s.Settings[len(s.Settings)-1])
	}
	return res, nil
}

// benchRun reads one test binary run: its benchmark results into set and
// its GC figures, and with keep its parsed log, cycles kept, for a model
// (nil when the run never collected).
func benchRun(cr *collect.Result, runErr error, out *bytes.Buffer, bs *BenchSet, set pacer.Setting, keep bool) (Run, int, *gctrace.Log, error) {
	if runErr != nil {
		return Run{}, 0, nil, runErr
	}
	if cr.ExitCode != 0 {
		msg := fmt.Sprintf("exit status %d", cr.ExitCode)
		if last := lastLine(out.String()); last != "" {
			msg += ": " + last
		}
		return Run{}, 0, nil, errors.New(msg)
	}
	n, err := bs.Add(bytes.NewReader(out.Bytes()), "stdout")
	if err != nil {
		return Run{}, 0, nil, err
	}
	r := unknownRun()
	f, err := os.Open(cr.GCTracePath)
	if err != nil {
		return Run{}, 0, nil, err
	}
	defer f.Close()
	// A benchmark that allocates nothing may never collect: that leaves
	// its GC figures unknown, not the run failed.
	log, err := gctrace.Parse(f, "gctrace.log", gctrace.Options{GOGC: max(set.GOGC, 0), KeepCycles: keep})
	if err == nil {
		r = RunFromLog(log)
	} else if errors.Is(err, gctrace.ErrNoCycles) {
		log = nil
	} else {
		return Run{}, 0, nil, err
	}
	r.WallS = cr.Duration.Seconds()
	if cr.PeakRSS > 0 {
		r.PeakRSS = float64(cr.PeakRSS)
	}
	if !keep {
		log = nil
	}
	return r, n, log, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && l != "FAIL" && !strings.HasPrefix(l, "exit status") {
			return l
		}
	}
	return ""
}

// buildTestBinary compiles pkg's test binary into dir without gctrace, so
// that the go command's own collections stay out of the measurements, and
// returns it with the package's directory, where go test would run it.
func buildTestBinary(ctx context.Context, pkg, dir string, env []string, stderr io.Writer) (bin, pkgDir string, err error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", "", fmt.Errorf("building the test binary: %v", err)
	}
	if pkg == "" {
		pkg = "."
	}
	var list bytes.Buffer
	cmd := exec.CommandContext(ctx, goTool, "list", "-f", "{{.Dir}}", pkg)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &list, stderr
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("go list %s: %v", pkg, err)
	}
	dirs := strings.Fields(list.String())
	if len(dirs) != 1 {
		return "", "", fmt.Errorf("%s names %d packages; bench compares the benchmarks of one", pkg, len(dirs))
	}
	bin = filepath.Join(dir, "pkg.test")
	var msgs bytes.Buffer
	cmd = exec.CommandContext(ctx, goTool, "test", "-c", "-o", bin, pkg)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &msgs, io.MultiWriter(&msgs, stderr)
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("go test -c %s: %v: %s", pkg, err, lastLine(msgs.String()))
	}
	if _, err := os.Stat(bin); err != nil {
		return "", "", fmt.Errorf("%s has no test files", pkg)
	}
	return bin, dirs[0], nil
}

// Table returns the benchmark comparison: per unit and benchmark a row
// with a column per setting, then the GC figures of the test binary runs.
func (r *BenchRuns) Table() *Table {
	t := &Table{Kind: "bench", Command: r.Command, Settings: r.Settings}
	// The test binary of a package is a temporary file: the package
	// names it better.
	t.Title = "bench " + r.Target + " " + strings.Join(r.Command[1:], " ")
	for _, s := range r.Settings {
		t.Columns = append(t.Columns, SettingLabel(s))
	}
	t.addBenchRows(r.Bench)
	t.addRunRows("", r.Runs)
	t.Notes = append(t.Notes, "The per run figures (wall time, peak RSS and GC) cover a whole run of the test binary: every benchmark it ran, with the testing package's own collections.")
	if !r.FixedWork {
		t.Notes = append(t.Notes, "Each run chose its own iteration counts, so GC counts do not compare across settings, and the pacer model, which predicts the same work under another setting, has nothing to say; -benchtime=Nx fixes both.")
		return t
	}
	t.addPredictions(r.Model, r.ModelErr)
	return t
}
