package collect

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gcdoctor/gcdoctor/pacer"
)

// MaxExperiments bounds the GOEXPERIMENT values one sweep or bench
// compares: each is a build of the program and a full set of runs.
const MaxExperiments = 8

// MaxCount bounds the runs per setting a user may ask for (sweep,
// bench): each is a run of the program.
const MaxCount = 100

// ParseSettingRuns checks what sweep and bench are asked to run: count
// runs (--count) of every --gogc with every --memlimit (see
// pacer.ParseSettingFlags), once per --goexperiment build (see
// ParseExperiments). Its errors name the flags.
func ParseSettingRuns(gogcs, limits []string, count int, experiments []string) ([]pacer.Setting, []string, error) {
	if count < 1 || count > MaxCount {
		return nil, nil, fmt.Errorf("--count must be between 1 and %d", MaxCount)
	}
	settings, err := pacer.ParseSettingFlags(gogcs, limits, "--gogc", "--memlimit")
	if err != nil {
		return nil, nil, err
	}
	exps, err := ParseExperiments(experiments)
	if err != nil {
		return nil, nil, fmt.Errorf("--goexperiment: %v", err)
	}
	return settings, exps, nil
}

// ParseExperiments checks GOEXPERIMENT values to compare, one build each,
// such as "greenteagc" and "nogreenteagc" (the Green Tea collector, on by
// default from Go 1.26, and the one before it). A value may join several
// experiments with "+" ("greenteagc+randomizedheapbase64"); it is passed
// to the go command with commas. It returns the values as GOEXPERIMENT
// takes them. Names are checked for their shape only: the go command
// rejects an experiment it does not know when it builds.
func ParseExperiments(values []string) ([]string, error) {
	if len(values) > MaxExperiments {
		return nil, fmt.Errorf("%d GOEXPERIMENT values: at most %d, each is a build and a full set of runs", len(values), MaxExperiments)
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range values {
		names := strings.Split(v, "+")
		for _, n := range names {
			if !experimentName(n) {
				return nil, fmt.Errorf("GOEXPERIMENT %q: want lower-case experiment names such as greenteagc or nogreenteagc, several joined with +", v)
			}
		}
		g := strings.Join(names, ",")
		if seen[g] {
			return nil, fmt.Errorf("GOEXPERIMENT %q given twice", v)
		}
		seen[g] = true
		out = append(out, g)
	}
	return out, nil
}

// experimentName reports whether n has the shape of a GOEXPERIMENT name:
// lower-case letters and digits, starting with a letter.
func experimentName(n string) bool {
	if n == "" || n[0] < 'a' || n[0] > 'z' {
		return false
	}
	for _, c := range n {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// ExperimentLabel returns a GOEXPERIMENT value as flags and columns show
// it, its experiments joined with "+".
func ExperimentLabel(exp string) string { return strings.ReplaceAll(exp, ",", "+") }

// experimentEnv returns env with GOEXPERIMENT set to exp.
func experimentEnv(env []string, exp string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GOEXPERIMENT=") {
			out = append(out, kv)
		}
	}
	return append(out, "GOEXPERIMENT="+exp)
}

// ErrPrebuilt is wrapped by the error Sweep and Bench return when asked
// to compare GOEXPERIMENT values with a program that is already built.
var ErrPrebuilt = errors.New("GOEXPERIMENT is read when a program is built, so a prebuilt binary cannot be switched")

// sweepBuild is the program a sweep runs for one GOEXPERIMENT value.
type sweepBuild struct {
	path string
	args []string
	env  []string
}

// sweepBuilds prepares the program of a sweep once per GOEXPERIMENT
// value. The go command (go run, go test) builds with the GOEXPERIMENT of
// its environment, so it gets each value in turn and builds the program
// itself; a directory holding a main package is built here, once per
// value, into tmp. A prebuilt program cannot be switched: that is an
// error wrapping ErrPrebuilt.
func (s *SweepSpec) sweepBuilds(ctx context.Context, tmp string, env []string, stderr io.Writer) ([]sweepBuild, error) {
	if len(s.Experiments) == 0 {
		return []sweepBuild{{path: s.Path, args: s.Args, env: env}}, nil
	}
	var builds []sweepBuild
	if st, err := os.Stat(s.Path); err == nil && st.IsDir() {
		for i, exp := range s.Experiments {
			bin := filepath.Join(tmp, fmt.Sprintf("prog-%d", i))
			if err := goBuild(ctx, s.Path, bin, experimentEnv(env, exp), stderr); err != nil {
				return nil, fmt.Errorf("GOEXPERIMENT=%s: %w", exp, err)
			}
			builds = append(builds, sweepBuild{path: bin, args: s.Args, env: env})
		}
		return builds, nil
	}
	path, err := exec.LookPath(s.Path)
	if err != nil {
		return nil, err
	}
	info, _ := buildinfo.ReadFile(path)
	if !isGoCommand(info) || len(s.Args) == 0 || (s.Args[0] != "run" && s.Args[0] != "test") {
		return nil, fmt.Errorf("%s: %w; give its package instead (a directory, or go run PKG)", s.Path, ErrPrebuilt)
	}
	for _, exp := range s.Experiments {
		builds = append(builds, sweepBuild{path: s.Path, args: s.Args, env: experimentEnv(env, exp)})
	}
	return builds, nil
}

// goBuild builds the main package in dir into bin with env.
func goBuild(ctx context.Context, dir, bin string, env []string, stderr io.Writer) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("building %s: %v", dir, err)
	}
	var msgs bytes.Buffer
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, ".")
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &msgs, io.MultiWriter(&msgs, stderr)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %v: %s", dir, err, lastLine(msgs.String()))
	}
	return nil
}
