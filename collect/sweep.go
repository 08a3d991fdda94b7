package collect

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// DefaultSweepCount is how many times Sweep runs the program under each
// setting when SweepSpec.Count is zero: five runs a side is the fewest
// with which the U test can find a difference significant with room to
// spare (four is the bare minimum at p < 0.05).
const DefaultSweepCount = 5

// SweepSpec describes a program to run under several GC settings.
type SweepSpec struct {
	// Path and Args are the program and its arguments, as for Spec.
	Path string
	Args []string
	// Env is the program's environment; nil means os.Environ(). GOGC and
	// GOMEMLIMIT are replaced by each setting's (an inherited GOMEMLIMIT is
	// removed for settings without a limit), and gctrace=1 is added to
	// GODEBUG.
	Env []string
	// Dir is the program's working directory; "" means the current one.
	Dir string
	// Settings are the GC settings to run under; the first is the
	// baseline. With Variants they may be nil: the program then runs
	// under the GC settings of Env, untouched.
	Settings []pacer.Setting
	// Variants, when set, are other ways to start the program, compared
	// with each other under every setting: a worker count given in an
	// argument or the environment, say. The first is the baseline.
	Variants []Variant
	// Experiments are GOEXPERIMENT values to compare (ParseExperiments),
	// every setting under each, the first value's first setting the
	// baseline. GOEXPERIMENT is read when a program is built, so the
	// program is built once per value: the go command (go run PKG) builds
	// it with each value in its environment, and a directory holding a
	// main package is built with go build. A prebuilt program cannot be
	// switched, and Sweep refuses Experiments with one (ErrPrebuilt). Nil
	// runs the program as it is.
	Experiments []string
	// Count is the number of runs per setting; zero means
	// DefaultSweepCount.
	Count int
	// Stdout and Stderr receive the program's output; nil discards it.
	Stdout, Stderr io.Writer
	// Progress, when set, is called before each run with the number of
	// runs done, the total and the setting (or the variant) about to run.
	Progress func(done, total int, what fmt.Stringer)
	// ToolVersion is recorded in each run's metadata.
	ToolVersion string
}

// SettingRun is one run of a program under one setting of a sweep or a
// bench, handed to the caller as soon as it has run, so that only one
// run's output is ever kept.
type SettingRun struct {
	// Setting is the index of the run's setting in the spec's Settings.
	Setting int
	// Experiment is the index of the run's GOEXPERIMENT value in the
	// spec's Experiments; 0 when there are none.
	Experiment int
	// Variant is the index of the run's variant in the spec's Variants;
	// 0 when there are none.
	Variant int
	// Run numbers the run among those of its setting, from 1.
	Run int
	// Result is what Run gathered. Its GCTracePath is removed once the
	// callback returns.
	Result *Result
	// OutputPath is the file holding the test binary's standard output,
	// with its benchmark results; set by Bench only, and removed once the
	// callback returns.
	OutputPath string
}

// Measured is what the run gathered, as package compare reads it.
func (r *SettingRun) Measured() compare.Measured {
	return compare.Measured{
		GCTracePath: r.Result.GCTracePath, OutputPath: r.OutputPath,
		Wall: r.Result.Duration, CPU: r.Result.CPU, PeakRSS: r.Result.PeakRSS,
		GoVersion: r.Result.GoVersion,
	}
}

// Failure is a run of a sweep that failed: the program could not be
// started, exited with a non-zero status, or its run was rejected by the
// caller (a run without a GC cycle, for one).
type Failure struct {
	Setting pacer.Setting
	// Experiment is the run's GOEXPERIMENT value, "" when the sweep
	// compares none.
	Experiment string
	// Variant is the name of the run's variant, "" when the sweep
	// compares none.
	Variant string
	Run     int // 1-based
	Err     error

	noSetting bool // the run kept the environment's GC settings
}

func (f Failure) Error() string {
	var what []string
	if f.Experiment != "" {
		what = append(what, "GOEXPERIMENT="+f.Experiment)
	}
	if !f.noSetting {
		what = append(what, f.Setting.String())
	}
	if f.Variant != "" {
		what = append(what, f.Variant)
	}
	return fmt.Sprintf("%s, run %d: %v", strings.Join(what, " "), f.Run, f.Err)
}

// Variant is one way to start the program in a sweep that compares
// something other than GC settings.
type Variant struct {
	// Name says what the variant is, as progress and failures show it:
	// "30 workers".
	Name string
	// Args replace SweepSpec.Args for the variant's runs.
	Args []string
	// Env holds NAME=value pairs set in the program's environment,
	// replacing any inherited value of the same name.
	Env []string
}

func (v Variant) String() string { return v.Name }

// sweepColumn is one column of a sweep: a build, a setting (-1 for the
// environment's) and a variant (-1 for none), with what progress shows.
type sweepColumn struct {
	build, setting, variant int
	what                    fmt.Stringer
}

// columns lists the sweep's columns in the order they run in each round
// and are numbered: builds, then settings, then variants.
func (s *SweepSpec) columns(builds int) []sweepColumn {
	settings, variants := len(s.Settings), len(s.Variants)
	var cols []sweepColumn
	for b := range builds {
		for i := range max(settings, 1) {
			for v := range max(variants, 1) {
				c := sweepColumn{build: b, setting: i, variant: v}
				if settings == 0 {
					c.setting = -1
				} else {
					c.what = s.Settings[i]
				}
				if variants == 0 {
					c.variant = -1
				} else {
					c.what = s.Variants[v]
				}
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// replaceEnv returns env with the NAME=value pairs of set in place of any
// of the same names.
func replaceEnv(env, set []string) []string {
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") }) {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

func (f Failure) Unwrap() error { return f.Err }

// SettingEnv returns env with GOGC and GOMEMLIMIT set to s: an inherited
// GOMEMLIMIT is removed when s has no limit, so that it does not apply to
// a setting that means none.
func SettingEnv(env []string, s pacer.Setting) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "GOMEMLIMIT=") {
			continue
		}
		out = append(out, kv)
	}
	gogc := "off"
	if s.GOGC >= 0 {
		gogc = strconv.Itoa(s.GOGC)
	}
	out = append(out, "GOGC="+gogc)
	if s.MemoryLimit > 0 {
		out = append(out, "GOMEMLIMIT="+pacer.GOMEMLIMIT(s.MemoryLimit))
	}
	return out
}

// Sweep runs the program Count times under each setting and hands every
// run that exited with status 0 to each, which reads what it needs before
// returning. The settings are interleaved (A B C A B C …) rather than run
// in blocks, so that a drift of the machine (thermal throttling, a noisy
// neighbour) touches every setting alike instead of biasing a comparison.
//
// A run that fails (it cannot be started, it exits with a non-zero status,
// or each returns an error for it) is recorded in the failures returned,
// with its exit status and the last line of its output, and its setting is
// not run again: a failing program's figures compare nothing, but the other
// settings' still do. Sweep returns an error when ctx is cancelled, and
// the first failure when every setting failed.
//
// With Experiments, the program is built once per GOEXPERIMENT value
// before the first run (see SweepSpec.Experiments), and each round of
// runs goes through every value's settings.
func Sweep(ctx context.Context, s SweepSpec, each func(*SettingRun) error) ([]Failure, error) {
	if len(s.Settings) == 0 && len(s.Variants) == 0 {
		return nil, errors.New("no settings to compare")
	}
	count := s.Count
	if count <= 0 {
		count = DefaultSweepCount
	}
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	tmp, err := os.MkdirTemp("", "gcdoctor-sweep-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	stderr := s.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	builds, err := s.sweepBuilds(ctx, tmp, env, stderr)
	if err != nil {
		return nil, err
	}
	var failures []Failure
	cols := s.columns(len(builds))
	total := count * len(cols)
	done := 0
	failed := make([]bool, len(cols))
	for rep := range count {
		for i, c := range cols {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if failed[i] {
				done++
				continue
			}
			if s.Progress != nil {
				s.Progress(done, total, c.what)
			}
			run := &SettingRun{Setting: max(c.setting, 0), Experiment: c.build, Variant: max(c.variant, 0), Run: rep + 1}
			if err := s.runOnce(ctx, builds[c.build], c, run, each); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				failed[i] = true
				failures = append(failures, s.failure(c, rep+1, err))
			}
			done++
		}
	}
	if s.Progress != nil {
		s.Progress(done, total, cols[len(cols)-1].what)
	}
	if len(failures) == len(cols) {
		return nil, failures[0]
	}
	return failures, nil
}

// failure describes the failed run rep of column c.
func (s *SweepSpec) failure(c sweepColumn, rep int, err error) Failure {
	f := Failure{Run: rep, Err: err, noSetting: c.setting < 0}
	if c.setting >= 0 {
		f.Setting = s.Settings[c.setting]
	}
	if len(s.Experiments) > 0 {
		f.Experiment = s.Experiments[c.build]
	}
	if c.variant >= 0 {
		f.Variant = s.Variants[c.variant].Name
	}
	return f
}

// runOnce runs the program b once as column c asks and hands the run to
// each.
func (s *SweepSpec) runOnce(ctx context.Context, b sweepBuild, c sweepColumn, run *SettingRun, each func(*SettingRun) error) error {
	args, env := b.args, b.env
	if c.setting >= 0 {
		env = SettingEnv(env, s.Settings[c.setting])
	}
	if c.variant >= 0 {
		v := s.Variants[c.variant]
		env = replaceEnv(env, v.Env)
		if v.Args != nil {
			args = v.Args
		}
	}
	cr, err := Run(ctx, Spec{
		Path: b.path, Args: args, Env: env, Dir: s.Dir,
		Stdout: s.Stdout, Stderr: s.Stderr, ToolVersion: s.ToolVersion,
	})
	if cr == nil {
		return err
	}
	defer cr.Cleanup()
	if err != nil {
		return err
	}
	if cr.ExitCode != 0 {
		msg := fmt.Sprintf("exit status %d", cr.ExitCode)
		if last := lastOutputLine(cr.GCTracePath); last != "" {
			msg += ": " + last
		}
		return errors.New(msg)
	}
	run.Result = cr
	return each(run)
}

// maxLastLine bounds the line a failure quotes from the program's output.
const maxLastLine = 200

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
	return quotable(last)
}

// quotable makes a line of the program's output fit to quote in an error
// message: a tab becomes a space and other control characters, which
// could drive the terminal the message is printed on, U+FFFD; a long line
// is cut at maxLastLine bytes.
func quotable(l string) string {
	l = strings.Map(func(r rune) rune {
		if r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) {
			return utf8.RuneError
		}
		return r
	}, l)
	if len(l) <= maxLastLine {
		return l
	}
	cut := maxLastLine
	for cut > 0 && !utf8.RuneStart(l[cut]) {
		cut--
	}
	return l[:cut] + "…"
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
