package collect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/pacer"
)

// sweepCall records what Sweep or Bench handed over for one run, read
// while the callback ran.
type sweepCall struct {
	setting, run int
	gogc, limit  string // from the run's metadata
	gctrace      string
	output       string
	paths        []string
}

func record(calls *[]sweepCall) func(*SettingRun) error {
	return func(r *SettingRun) error {
		trace, err := os.ReadFile(r.Result.GCTracePath)
		if err != nil {
			return err
		}
		c := sweepCall{setting: r.Setting, run: r.Run, gogc: r.Result.Meta.GOGC, limit: r.Result.Meta.GOMEMLIMIT,
			gctrace: string(trace), paths: []string{r.Result.GCTracePath}}
		if r.OutputPath != "" {
			out, err := os.ReadFile(r.OutputPath)
			if err != nil {
				return err
			}
			c.output = string(out)
			c.paths = append(c.paths, r.OutputPath)
		}
		*calls = append(*calls, c)
		return nil
	}
}

// checkRemoved fails the test for every file of the calls that is left.
func checkRemoved(t *testing.T, calls []sweepCall) {
	t.Helper()
	for _, c := range calls {
		for _, p := range c.paths {
			if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s survives the sweep: %v", p, err)
			}
		}
	}
}

func TestSweep(t *testing.T) {
	t.Parallel()
	settings := []pacer.Setting{{GOGC: 50}, {GOGC: pacer.Off, MemoryLimit: 64 << 20}}
	var calls []sweepCall
	var progress []string
	failures, err := Sweep(context.Background(), SweepSpec{
		Path: alloc(t), Args: []string{"-alloc=50ms"}, Settings: settings, Count: 2,
		// An inherited limit must not apply to a setting without one.
		Env: append(os.Environ(), "GOMEMLIMIT=1GiB", "GOGC=7"),
		Progress: func(done, total int, s fmt.Stringer) {
			progress = append(progress, fmt.Sprintf("%d/%d %s", done, total, s))
		},
	}, record(&calls))
	if err != nil || len(failures) != 0 {
		t.Fatalf("Sweep: %v, failures %v", err, failures)
	}
	var got []string
	for _, c := range calls {
		got = append(got, fmt.Sprintf("%d.%d GOGC=%s GOMEMLIMIT=%s", c.setting, c.run, c.gogc, c.limit))
		if !strings.Contains(c.gctrace, "alloc: hello on stderr") {
			t.Errorf("run %d.%d: gctrace without the program's output:\n%s", c.setting, c.run, c.gctrace)
		}
		// GOGC=50 collects from the first 4 MB; under GOGC=off and a
		// 64 MiB limit a short run may exit before its first cycle, and
		// any run may exit while the runtime prints a line.
		if c.setting == 0 && !strings.Contains(c.gctrace, "\ngc ") {
			t.Errorf("run %d.%d: gctrace without gc lines:\n%s", c.setting, c.run, c.gctrace)
		}
	}
	// The settings interleave, each in its own environment.
	want := []string{"0.1 GOGC=50 GOMEMLIMIT=", "1.1 GOGC=off GOMEMLIMIT=64MiB", "0.2 GOGC=50 GOMEMLIMIT=", "1.2 GOGC=off GOMEMLIMIT=64MiB"}
	if !slices.Equal(got, want) {
		t.Errorf("runs %q, want %q", got, want)
	}
	wantProgress := []string{"0/4 GOGC=50", "1/4 GOGC=off GOMEMLIMIT=64MiB", "2/4 GOGC=50", "3/4 GOGC=off GOMEMLIMIT=64MiB", "4/4 GOGC=off GOMEMLIMIT=64MiB"}
	if !slices.Equal(progress, wantProgress) {
		t.Errorf("progress %q, want %q", progress, wantProgress)
	}
	checkRemoved(t, calls)
}

// TestSweepVariants: each variant runs with its own arguments and
// environment, interleaved, and without Settings the environment's GC
// settings are kept.
func TestSweepVariants(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	variants := []Variant{
		{Name: "short", Args: []string{"-alloc=20ms"}, Env: []string{"GOGC=300"}},
		{Name: "long", Args: []string{"-alloc=40ms", "-exit=0"}},
	}
	var got, progress []string
	failures, err := Sweep(context.Background(), SweepSpec{
		Path: bin, Args: []string{"-exit=9"}, Variants: variants, Count: 2,
		Env: append(os.Environ(), "GOGC=7"),
		Progress: func(done, total int, s fmt.Stringer) {
			progress = append(progress, fmt.Sprintf("%d/%d %s", done, total, s))
		},
	}, func(r *SettingRun) error {
		got = append(got, fmt.Sprintf("%d.%d GOGC=%s %s", r.Variant, r.Run, r.Result.Meta.GOGC, strings.Join(r.Result.Meta.Command[1:], " ")))
		return nil
	})
	if err != nil || len(failures) != 0 {
		t.Fatalf("Sweep: %v, failures %v", err, failures)
	}
	want := []string{"0.1 GOGC=300 -alloc=20ms", "1.1 GOGC=7 -alloc=40ms -exit=0", "0.2 GOGC=300 -alloc=20ms", "1.2 GOGC=7 -alloc=40ms -exit=0"}
	if !slices.Equal(got, want) {
		t.Errorf("runs\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	if want := []string{"0/4 short", "1/4 long", "2/4 short", "3/4 long", "4/4 long"}; !slices.Equal(progress, want) {
		t.Errorf("progress %q, want %q", progress, want)
	}

	// A failing variant is named, without a GC setting it did not have.
	failures, err = Sweep(context.Background(), SweepSpec{
		Path: bin, Variants: []Variant{variants[0], {Name: "failing", Args: []string{"-alloc=20ms", "-exit=3"}}}, Count: 1,
	}, func(*SettingRun) error { return nil })
	if err != nil || len(failures) != 1 || !strings.HasPrefix(failures[0].Error(), "failing, run 1: exit status 3") {
		t.Errorf("Sweep: %v, failures %v, want one of the failing variant", err, failures)
	}
}

// TestSweepFailures: a failing setting is not run again and the others go
// on; when every setting fails, Sweep fails with the first failure.
func TestSweepFailures(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	rejected := errors.New("no GC cycle")
	tests := []struct {
		name     string
		args     []string
		reject   int // the setting whose runs the callback rejects; -1 none
		runs     []string
		failures []string
		err      string
	}{
		{"callback rejects one setting", []string{"-alloc=20ms"}, 1,
			[]string{"0.1", "1.1", "2.1", "0.2", "2.2"},
			[]string{"GOGC=200, run 1: no GC cycle"}, ""},
		{"every run exits 3", []string{"-alloc=20ms", "-exit=3"}, -1, nil, nil,
			"GOGC=100, run 1: exit status 3"},
		{"not startable", nil, -1, nil, nil, "GOGC=100, run 1: run "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := bin
			if tt.args == nil {
				path = bin + ".missing"
			}
			var runs []string
			failures, err := Sweep(context.Background(), SweepSpec{
				Path: path, Args: tt.args, Count: 2,
				Settings: []pacer.Setting{{GOGC: 100}, {GOGC: 200}, {GOGC: 400}},
			}, func(r *SettingRun) error {
				runs = append(runs, fmt.Sprintf("%d.%d", r.Setting, r.Run))
				if r.Setting == tt.reject {
					return rejected
				}
				return nil
			})
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Errorf("Sweep: %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var fs []string
			for _, f := range failures {
				fs = append(fs, f.Error())
			}
			if !slices.Equal(runs, tt.runs) || !slices.Equal(fs, tt.failures) {
				t.Errorf("runs %q failures %q, want %q %q", runs, fs, tt.runs, tt.failures)
			}
		})
	}
}

func TestSweepCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := Sweep(ctx, SweepSpec{Path: alloc(t), Args: []string{"-alloc=20ms"}, Count: 3,
		Settings: []pacer.Setting{{GOGC: 100}, {GOGC: 200}}}, func(*SettingRun) error {
		n++
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("Sweep after cancel: %v after %d runs, want context.Canceled after 1", err, n)
	}
	if _, err := Sweep(context.Background(), SweepSpec{Path: "true"}, nil); err == nil {
		t.Error("Sweep without settings succeeded")
	}
}

// TestBench builds the benchmarks of ../compare/testdata/benchsrc once,
// then runs them as a package and as a prebuilt binary.
func TestBench(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	const pkg = "../compare/testdata/benchsrc"
	settings := []pacer.Setting{{GOGC: 100}, {GOGC: 400}}
	var calls []sweepCall
	var stderr strings.Builder
	command, err := Bench(context.Background(), BenchSpec{Pkg: pkg, Bench: "Join", Benchtime: "200x",
		TestArgs: []string{"-test.cpu=1"}, Settings: settings, Count: 2, Stderr: &stderr}, record(&calls))
	if err != nil {
		t.Fatalf("Bench: %v\n%s", err, stderr.String())
	}
	wantArgs := []string{"-test.run=^$", "-test.bench=Join", "-test.count=1", "-test.benchmem", "-test.benchtime=200x", "-test.cpu=1"}
	if len(command) == 0 || !slices.Equal(command[1:], wantArgs) {
		t.Errorf("command %q, want the binary and %q", command, wantArgs)
	}
	if _, err := os.Stat(command[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the test binary %s survives Bench: %v", command[0], err)
	}
	var got []string
	for _, c := range calls {
		got = append(got, fmt.Sprintf("%d.%d GOGC=%s", c.setting, c.run, c.gogc))
		if !strings.Contains(c.output, "BenchmarkJoin") || strings.Contains(c.output, "BenchmarkItoa") || !strings.Contains(c.output, "allocs/op") {
			t.Errorf("run %d.%d: output\n%s", c.setting, c.run, c.output)
		}
	}
	if want := []string{"0.1 GOGC=100", "1.1 GOGC=400", "0.2 GOGC=100", "1.2 GOGC=400"}; !slices.Equal(got, want) {
		t.Errorf("runs %q, want %q", got, want)
	}
	checkRemoved(t, calls)

	// A prebuilt binary runs in Dir; its failures name the setting and
	// the run, while the callback's errors come back as they are.
	bin, dir, err := buildTestBinary(context.Background(), pkg, filepath.Join(t.TempDir(), "pkg.test"), os.Environ(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mine := errors.New("no benchmark matches")
	tests := []struct {
		name string
		args []string
		each func(*SettingRun) error
		want string
	}{
		{"bad flag", []string{"-test.nosuchflag"}, func(*SettingRun) error { return nil }, "GOGC=400, run 1 of 1: exit status 2"},
		{"callback error", nil, func(*SettingRun) error { return mine }, "no benchmark matches"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings := []pacer.Setting{{GOGC: 400}}
			_, err := Bench(context.Background(), BenchSpec{Binary: bin, Dir: dir, Bench: "Join", Benchtime: "1x",
				TestArgs: tt.args, Settings: settings, Count: 1}, tt.each)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Bench: %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := Bench(context.Background(), BenchSpec{Pkg: "./testdata/no-such-package", Settings: settings}, record(&calls)); err == nil || !strings.Contains(err.Error(), "no-such-package") {
		t.Errorf("Bench of a missing package: %v", err)
	}
}

// TestExperiments builds a program and a package's test binary once per
// GOEXPERIMENT value and runs each build, as sweep and bench
// --goexperiment do; a prebuilt program cannot be switched.
func TestExperiments(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	exps := []string{"greenteagc", "nogreenteagc"}
	versions := func(got *[]string) func(*SettingRun) error {
		return func(r *SettingRun) error {
			*got = append(*got, fmt.Sprintf("%d.%d.%d %s", r.Experiment, r.Setting, r.Run, r.Result.GoVersion))
			return nil
		}
	}
	settings := []pacer.Setting{{GOGC: 100}}
	var got []string
	failures, err := Sweep(context.Background(), SweepSpec{Path: "testdata/alloc", Args: []string{"-alloc=20ms"},
		Settings: settings, Experiments: exps, Count: 1}, versions(&got))
	if err != nil || len(failures) != 0 {
		t.Fatalf("Sweep of a package directory: %v, failures %v", err, failures)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "0.0.1 go1.") || strings.Contains(got[0], "nogreenteagc") || !strings.HasPrefix(got[1], "1.0.1 go1.") || !strings.Contains(got[1], "X:nogreenteagc") {
		t.Errorf("sweep runs %q: want the default build, then one built with nogreenteagc", got)
	}

	got = nil
	_, err = Bench(context.Background(), BenchSpec{Pkg: "../compare/testdata/benchsrc", Bench: "Join", Benchtime: "10x",
		Settings: settings, Experiments: exps, Count: 1}, versions(&got))
	if err != nil {
		t.Fatalf("Bench: %v", err)
	}
	if len(got) != 2 || strings.Contains(got[0], "nogreenteagc") || !strings.Contains(got[1], "X:nogreenteagc") {
		t.Errorf("bench runs %q: want the default build, then one built with nogreenteagc", got)
	}

	if _, err := Sweep(context.Background(), SweepSpec{Path: alloc(t), Settings: settings, Experiments: exps}, versions(&got)); !errors.Is(err, ErrPrebuilt) {
		t.Errorf("Sweep of a prebuilt program with experiments: %v, want ErrPrebuilt", err)
	}
	if _, err := Bench(context.Background(), BenchSpec{Binary: alloc(t), Settings: settings, Experiments: exps}, versions(&got)); !errors.Is(err, ErrPrebuilt) {
		t.Errorf("Bench of a prebuilt binary with experiments: %v, want ErrPrebuilt", err)
	}
}
