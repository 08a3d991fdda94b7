package workers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/internal/plural"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// SizeArg is replaced by the worker count of each run in the arguments of
// the program Verify runs.
const SizeArg = "{N}"

// MaxVerifySizes bounds the sizes one verification runs, and MaxVerifyCount
// the runs of each: every one is a run of the program.
const (
	MaxVerifySizes = 8
	MaxVerifyCount = 100
)

// DefaultVerifyCount is the runs per size when VerifySpec.Count is zero:
// six a side give each median a 95% confidence interval (five do not),
// and let the U test find a difference at p < 0.05 with room to spare.
const DefaultVerifyCount = 6

// VerifySpec is how Verify runs the program whose pool was sized, to
// check the recommendation against its wall time.
type VerifySpec struct {
	// Command is the program and its arguments; SizeArg in an argument is
	// replaced by the worker count of each run.
	Command []string
	// SizeEnv, when set, names an environment variable set to the worker
	// count of each run.
	SizeEnv string
	// Sizes are the worker counts to run; nil means Sizes(Recommended,
	// Current). The recommendation is always among them, and the baseline.
	Sizes []int
	// Recommended is the count checked; Current the pool's size in the
	// measured trace, 0 when not known.
	Recommended, Current int
	// Count is the number of runs per size, from 1 to MaxVerifyCount;
	// Verify takes 0 for DefaultVerifyCount (Check does not).
	Count int
	// Env is the program's environment; nil means os.Environ(). Its GOGC
	// and GOMEMLIMIT hold for every run.
	Env []string
	// Stdout and Stderr receive the program's output; nil discards it.
	Stdout, Stderr io.Writer
	// Progress, when set, is called before each run (collect.SweepSpec).
	Progress func(done, total int, what fmt.Stringer)
	// ToolVersion is recorded in each run's metadata.
	ToolVersion string
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Check reports what keeps the spec from running: the program must learn
// its size from SizeEnv or from SizeArg in its arguments, or every run
// would be the same.
func (s *VerifySpec) Check() error {
	switch {
	case len(s.Command) == 0:
		return errors.New("no program to run: give it after --")
	case s.SizeEnv != "" && !envName.MatchString(s.SizeEnv):
		return fmt.Errorf("--size-env %q is not an environment variable's name", s.SizeEnv)
	case s.SizeEnv == "" && !slices.ContainsFunc(s.Command[1:], func(a string) bool { return strings.Contains(a, SizeArg) }):
		return fmt.Errorf("the program is not told its worker count: name the environment variable it reads with --size-env, or put %s in its arguments", SizeArg)
	case s.Count < 1 || s.Count > MaxVerifyCount:
		return fmt.Errorf("--count must be between 1 and %d", MaxVerifyCount)
	case len(s.Sizes) > MaxVerifySizes:
		return fmt.Errorf("--sizes: %d sizes, at most %d", len(s.Sizes), MaxVerifySizes)
	}
	for _, n := range s.Sizes {
		if n < 1 || n > defaultMax {
			return fmt.Errorf("--sizes: %d workers: give counts from 1 to %d", n, defaultMax)
		}
	}
	return nil
}

// defaultMax is the largest count Recommend gives without Options.Max.
const defaultMax = 10000

// Sizes returns the worker counts that check a recommendation of rec: rec
// itself first, the baseline, then half and twice it (the ends of the
// range Recommend gives and one step below it) and the size the pool had
// when measured, if known, in increasing order.
func Sizes(rec, current int) []int {
	rec = max(rec, 1)
	var others []int
	for _, n := range []int{max(rec/2, 1), min(2*rec, defaultMax), current} {
		if n > 0 && n != rec && !slices.Contains(others, n) {
			others = append(others, n)
		}
	}
	slices.Sort(others)
	return append([]int{rec}, others...)
}

// Verification is a recommendation checked against runs of the program at
// several sizes.
type Verification struct {
	// Table compares the sizes' runs, a column per size, the recommended
	// size first (the baseline).
	Table *compare.Table
	// Sizes are the worker counts of the columns.
	Sizes                []int
	Recommended, Current int
	Command              []string
	SizeEnv              string
	// Best is the column with the lowest median wall time; -1 when no
	// size ran.
	Best int
	// Significant reports whether Best's wall time differs from the
	// recommended size's beyond noise (always false when Best is 0).
	Significant bool
	// Verdict says, in sentences, whether the recommended size is the
	// best, or which is and by how much.
	Verdict []string
}

// Verify runs the program at each size, interleaved, Count times each, and
// compares the sizes' wall time, CPU time and GC figures with the
// recommended size's. The failures are runs that failed, their size not
// run again; the error is set when the program could not be run at all.
func Verify(ctx context.Context, s VerifySpec) (*Verification, []collect.Failure, error) {
	if s.Count == 0 {
		s.Count = DefaultVerifyCount
	}
	if err := s.Check(); err != nil {
		return nil, nil, err
	}
	sizes := s.Sizes
	if sizes == nil {
		sizes = Sizes(s.Recommended, s.Current)
	} else {
		// The recommendation first, the baseline; each size once.
		given := sizes
		sizes = []int{s.Recommended}
		for _, n := range given {
			if !slices.Contains(sizes, n) {
				sizes = append(sizes, n)
			}
		}
	}
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	var variants []collect.Variant
	var labels []string
	for _, n := range sizes {
		v := collect.Variant{Name: plural.S(n, "worker"), Args: substitute(s.Command[1:], n)}
		if s.SizeEnv != "" {
			v.Env = []string{s.SizeEnv + "=" + strconv.Itoa(n)}
		}
		variants = append(variants, v)
		labels = append(labels, v.Name)
	}
	runs := compare.NewVariantRuns("workers", s.Command, labels, envSetting(env))
	failures, err := collect.Sweep(ctx, collect.SweepSpec{
		Path: s.Command[0], Args: s.Command[1:], Env: env, Variants: variants, Count: s.Count,
		Stdout: s.Stdout, Stderr: s.Stderr, Progress: s.Progress, ToolVersion: s.ToolVersion,
	}, func(r *collect.SettingRun) error { return runs.Add(r.Variant, r.Measured()) })
	if err != nil {
		return nil, failures, err
	}
	v := &Verification{Table: runs.Table(), Sizes: sizes, Recommended: sizes[0], Current: s.Current,
		Command: s.Command, SizeEnv: s.SizeEnv}
	v.Table.Title = fmt.Sprintf("%s at %d sizes, %s", strings.Join(s.Command, " "), len(sizes), howTold(s.SizeEnv, s.Command))
	v.Judge()
	return v, failures, nil
}

// howTold says how the program learns its worker count.
func howTold(env string, command []string) string {
	var how []string
	if env != "" {
		how = append(how, env+"=N")
	}
	if slices.ContainsFunc(command[1:], func(a string) bool { return strings.Contains(a, SizeArg) }) {
		how = append(how, SizeArg+" in the arguments")
	}
	return strings.Join(how, " and ")
}

// substitute replaces SizeArg in each argument by n.
func substitute(args []string, n int) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, SizeArg, strconv.Itoa(n))
	}
	return out
}

// envSetting is the GC setting env gives its programs: GOGC=100 and no
// limit unless it sets them (a value the runtime would not read leaves
// its default).
func envSetting(env []string) pacer.Setting {
	gogc, limits := "100", []string(nil)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOGC="); ok && v != "" {
			gogc = v
		}
		if v, ok := strings.CutPrefix(kv, "GOMEMLIMIT="); ok && v != "" {
			limits = []string{v}
		}
	}
	if s, err := pacer.ParseSettings([]string{gogc}, limits); err == nil && len(s) == 1 {
		return s[0]
	}
	return pacer.Setting{GOGC: 100}
}

// Judge finds the fastest size and says how the recommended one compares
// (Best, Significant, Verdict) from the wall times of Table.
func (v *Verification) Judge() {
	v.Best = -1
	wall := v.Table.Find("", compare.MetricWall.Name)
	if wall == nil {
		v.Verdict = []string{"No size ran to the end: nothing to compare."}
		return
	}
	for i, c := range wall.Cells {
		if c.Summary.N > 0 && (v.Best < 0 || c.Summary.Median < wall.Cells[v.Best].Summary.Median) {
			v.Best = i
		}
	}
	rec := plural.S(v.Recommended, "worker")
	say := func(format string, args ...any) { v.Verdict = append(v.Verdict, fmt.Sprintf(format, args...)) }
	switch {
	case v.Best < 0:
		say("No size ran to the end: nothing to compare.")
		return
	case wall.Cells[0].Summary.N == 0:
		say("The recommended %s did not run to the end; %s ran fastest.", rec, plural.S(v.Sizes[v.Best], "worker"))
		return
	case v.Best == 0:
		var slower, same []string
		for i, c := range wall.Cells[1:] {
			switch d := c.Delta; {
			case d == nil:
			case d.Significant:
				slower = append(slower, fmt.Sprintf("%s (%+.0f%%)", plural.S(v.Sizes[i+1], "worker"), d.Percent))
			default:
				same = append(same, plural.S(v.Sizes[i+1], "worker"))
			}
		}
		say("The recommended %s ran fastest: median wall time %s.", rec, seconds(wall.Cells[0].Summary.Median))
		if len(slower) > 0 {
			say("Slower beyond noise: %s.", join(slower))
		}
		if len(same) > 0 {
			say("Not distinguishable from it at these runs (~): %s; more runs (--count) may tell them apart.", join(same))
		}
	default:
		best, d := wall.Cells[v.Best], wall.Cells[v.Best].Delta
		b := plural.S(v.Sizes[v.Best], "worker")
		v.Significant = d != nil && d.Significant
		if v.Significant {
			say("%s ran fastest: median wall time %s, %.0f%% less than the recommended %s (%s, %s).",
				capital(b), seconds(best.Summary.Median), -d.Percent, rec, seconds(wall.Cells[0].Summary.Median), strings.Trim(deltaStat(d), "()"))
			if v.Sizes[v.Best] > v.Recommended {
				say("The jobs wait more than the trace counted as waiting: if the workers wait on channels for results of outside work, size the pool again with --channel-wait-is-work.")
			} else {
				say("System calls the trace counts as waiting also spend CPU in the kernel, which makes the formula err toward more workers (docs/workers.md, edge cases).")
			}
		} else {
			say("%s had the lowest median wall time (%s against %s), but not beyond noise (%s): the recommended %s is as good at these runs.",
				capital(b), seconds(best.Summary.Median), seconds(wall.Cells[0].Summary.Median), strings.Trim(deltaStat(d), "()"), rec)
		}
	}
}

// deltaStat is the "(p=… n=…)" part of a delta, or "" without one.
func deltaStat(d *compare.Delta) string {
	if d == nil {
		return ""
	}
	s := d.String()
	if i := strings.Index(s, "("); i >= 0 {
		return s[i:]
	}
	return s
}

// seconds formats a median wall time in seconds for a sentence.
func seconds(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return "n/a"
	}
	return round(time.Duration(s * float64(time.Second))).String()
}

func join(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
