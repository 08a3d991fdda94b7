package collect

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
	// Settings are the GC settings to run under; the first is the
	// baseline.
	Settings []pacer.Setting
	// Experiments are GOEXPERIMENT values to compare (ParseExperiments),
	// every setting under each, the first value's first setting the
	// baseline. GOEXPERIMENT is read when a program is built, so the test
	// binary of Pkg is built once per value; a prebuilt Binary cannot be
	// switched, and Bench refuses Experiments with one (ErrPrebuilt). Nil
	// builds once, with the environment's GOEXPERIMENT.
	Experiments []string
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

// Target names what the benchmarks come from: the package, or the
// prebuilt test binary.
func (s *BenchSpec) Target() string {
	if s.Binary != "" {
		return s.Binary
	}
	return s.Pkg
}

// Runs returns the number of runs per setting Bench makes.
func (s *BenchSpec) Runs() int {
	if s.Count <= 0 {
		return DefaultBenchCount
	}
	return s.Count
}

// Pattern returns the -test.bench pattern the runs use.
func (s *BenchSpec) Pattern() string {
	if s.Bench == "" {
		return "."
	}
	return s.Bench
}

// FixedWork reports whether every run does a fixed number of iterations
// (-benchtime=Nx), and so the same work whatever the setting.
func (s *BenchSpec) FixedWork() bool { return strings.HasSuffix(s.Benchtime, "x") }

// Bench builds the package's test binary once (once per GOEXPERIMENT
// value with Experiments), then runs its benchmarks Count times under
// each setting, interleaved as Sweep interleaves runs,
// and hands every run to each, which reads the benchmark results and the
// gctrace before returning. It returns the test binary's command line as
// run; the binary built from Pkg is a temporary file, gone when Bench
// returns.
//
// Benchmarks compare only when every run succeeds: a run that fails to
// start or exits with a non-zero status ends the bench with an error naming
// its setting and run, and an error from each ends it too, returned as it
// is.
func Bench(ctx context.Context, s BenchSpec, each func(*SettingRun) error) ([]string, error) {
	if len(s.Settings) == 0 {
		return nil, errors.New("no settings to compare")
	}
	count := s.Runs()
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	stderr := s.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	if s.Binary != "" && len(s.Experiments) > 0 {
		return nil, fmt.Errorf("%s: %w; give its package instead", s.Binary, ErrPrebuilt)
	}
	tmp, err := os.MkdirTemp("", "gcdoctor-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bins, dir := []string{s.Binary}, s.Dir
	if s.Binary == "" {
		if bins, dir, err = s.buildTestBinaries(ctx, tmp, env, stderr); err != nil {
			return nil, err
		}
	}
	args := []string{"-test.run=^$", "-test.bench=" + s.Pattern(), "-test.count=1", "-test.benchmem"}
	if s.Benchtime != "" {
		args = append(args, "-test.benchtime="+s.Benchtime)
	}
	args = append(args, s.TestArgs...)
	command := append([]string{bins[0]}, args...)
	outPath := filepath.Join(tmp, "stdout.txt")
	total := count * len(s.Settings) * len(bins)
	done := 0
	for rep := range count {
		for e, bin := range bins {
			for i, set := range s.Settings {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				if s.Progress != nil {
					s.Progress(done, total, set)
				}
				run := &SettingRun{Setting: i, Experiment: e, Run: rep + 1, OutputPath: outPath}
				if err := s.runOnce(ctx, bin, args, dir, SettingEnv(env, set), stderr, count, run, each); err != nil {
					return nil, err
				}
				done++
			}
		}
	}
	if s.Progress != nil {
		s.Progress(done, total, s.Settings[len(s.Settings)-1])
	}
	return command, nil
}

// runOnce runs the test binary once, its standard output in
// run.OutputPath, and hands the run to each. Its errors name the setting
// and the run, except those of a binary that cannot be started, which
// every run would share, and those of each, which are the caller's own.
func (s *BenchSpec) runOnce(ctx context.Context, bin string, args []string, dir string, env []string, stderr io.Writer, count int, run *SettingRun, each func(*SettingRun) error) error {
	named := func(err error) error {
		if len(s.Experiments) > 0 {
			return fmt.Errorf("GOEXPERIMENT=%s %s, run %d of %d: %w", s.Experiments[run.Experiment], s.Settings[run.Setting], run.Run, count, err)
		}
		return fmt.Errorf("%s, run %d of %d: %w", s.Settings[run.Setting], run.Run, count, err)
	}
	f, err := os.Create(run.OutputPath)
	if err != nil {
		return err
	}
	defer os.Remove(run.OutputPath)
	out := &errWriter{w: f}
	cr, err := Run(ctx, Spec{Path: bin, Args: args, Env: env, Dir: dir,
		Stdout: out, Stderr: stderr, ToolVersion: s.ToolVersion})
	closeErr := f.Close()
	if cr == nil {
		return err
	}
	defer cr.Cleanup()
	if err != nil {
		return named(err)
	}
	// The results must be whole: a benchmark missing from one run would
	// make its samples uneven without a word.
	if err := errors.Join(out.err, closeErr); err != nil {
		return named(fmt.Errorf("saving the benchmark output: %w", err))
	}
	if cr.ExitCode != 0 {
		msg := fmt.Sprintf("exit status %d", cr.ExitCode)
		if last := lastTestLine(run.OutputPath); last != "" {
			msg += ": " + last
		}
		return named(errors.New(msg))
	}
	run.Result = cr
	return each(run)
}

// errWriter writes to w and remembers its first error, which Run's own
// writer would drop so as never to block the program.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, err
}

// tailSize is how much of the end of a test binary's output is read for
// the line that says why it failed.
const tailSize = 64 << 10

// lastTestLine returns the last line of a test binary's output that says
// more than that it failed ("FAIL", "exit status 1").
func lastTestLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > tailSize {
		if _, err := f.Seek(-tailSize, io.SeekEnd); err != nil {
			return ""
		}
	}
	tail, err := io.ReadAll(io.LimitReader(f, tailSize))
	if err != nil {
		return ""
	}
	return quotable(lastLine(string(tail)))
}

// lastLine returns the last line of s that says more than that a test
// binary or the go command failed.
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

// buildTestBinaries compiles the package's test binary into dir, once
// per GOEXPERIMENT value of s.Experiments (once with env as it is without
// them), and returns the binaries with the package's directory.
func (s *BenchSpec) buildTestBinaries(ctx context.Context, dir string, env []string, stderr io.Writer) ([]string, string, error) {
	if len(s.Experiments) == 0 {
		bin, pkgDir, err := buildTestBinary(ctx, s.Pkg, filepath.Join(dir, "pkg.test"), env, stderr)
		return []string{bin}, pkgDir, err
	}
	var bins []string
	var pkgDir string
	for i, exp := range s.Experiments {
		bin, d, err := buildTestBinary(ctx, s.Pkg, filepath.Join(dir, fmt.Sprintf("pkg-%d.test", i)), experimentEnv(env, exp), stderr)
		if err != nil {
			return nil, "", fmt.Errorf("GOEXPERIMENT=%s: %w", exp, err)
		}
		bins, pkgDir = append(bins, bin), d
	}
	return bins, pkgDir, nil
}

// buildTestBinary compiles pkg's test binary into bin without gctrace, so
// that the go command's own collections stay out of the measurements, and
// returns it with the package's directory, where go test would run it.
func buildTestBinary(ctx context.Context, pkg, bin string, env []string, stderr io.Writer) (_, pkgDir string, err error) {
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

// SetTarget sets what runs from bench's argument: a prebuilt test binary
// (a regular file), run in dir, or else a package. GOEXPERIMENT is read at
// build time, so Experiments need a package.
func (s *BenchSpec) SetTarget(arg, dir string) error {
	if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
		if len(s.Experiments) > 0 {
			return fmt.Errorf("--goexperiment: %s is a prebuilt test binary, and GOEXPERIMENT is read at build time: give its package, which bench builds once per value", arg)
		}
		s.Binary, s.Dir = arg, dir
		return nil
	}
	s.Pkg = arg
	return nil
}
