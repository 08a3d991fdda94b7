package collect

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// goTestTimeout bounds each test that runs the go command: a build that
// hangs fails the test rather than the test run.
const goTestTimeout = 10 * time.Minute

// goCommand returns the path of the go command, skipping the test when
// there is none.
func goCommand(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	return path
}

// goEnv returns an environment for the go command that uses the build
// cache cache and nothing of the machine's go settings, with extra added.
func goEnv(cache string, extra ...string) []string {
	env := append(os.Environ(), "GOCACHE="+cache, "GOFLAGS=", "GOENV=off", "GOTOOLCHAIN=local",
		"GOPROXY=off", "GOWORK=off", "GODEBUG=", "GOGC=", "GOMEMLIMIT=")
	return append(env, extra...)
}

// writeModule writes a module of the given files into a new directory
// and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mod")
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// tinyModule is a module of one package without imports, so that building
// it compiles that package alone. Its 200 functions make the compiler
// allocate enough to collect many times under GOGC=5.
func tinyModule(t *testing.T) string {
	var src strings.Builder
	src.WriteString("package p\n\n")
	for i := range 200 {
		fmt.Fprintf(&src, "func F%d(a []int) int { s := 0; for i, v := range a { if v%%%d == 0 { s += i * v } }; return s }\n", i, i+2)
	}
	return writeModule(t, map[string]string{
		"go.mod": "module example.com/tiny\n\ngo 1.21\n",
		"p/p.go": src.String(),
	})
}

// compileLabel is the header the go command, and the wrapper, put above
// the output of the compile of tinyModule's package.
const compileLabel = "# example.com/tiny/p"

// runGo runs the go command under Run in dir and returns the result, its
// standard output and error, and the gctrace log read as gcdoctor reads
// that of a run.
func runGo(t *testing.T, goCmd, dir string, env []string, args ...string) (*Result, string, string, *gctrace.Log) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), goTestTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	res, err := Run(ctx, Spec{Path: goCmd, Args: args, Dir: dir, Env: env, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	t.Cleanup(func() { res.Cleanup() })
	if res.ExitCode != 0 {
		t.Fatalf("go %s: exit status %d\n%s", strings.Join(args, " "), res.ExitCode, stderr.String())
	}
	f, err := os.Open(res.GCTracePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := gctrace.Parse(f, "gctrace.log", gctrace.Options{RunS: res.Duration.Seconds()})
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	return res, stdout.String(), stderr.String(), log
}

// labelled returns the segments of log with the given label.
func labelled(log *gctrace.Log, label string) []*gctrace.Segment {
	var segs []*gctrace.Segment
	for _, s := range log.Segments {
		if s.Label == label {
			segs = append(segs, s)
		}
	}
	return segs
}

// traceLines returns the lines of out that the runtime's GC tracing
// wrote.
func traceLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if gctrace.IsTrace(gctrace.ClassifyLine([]byte(l), nil)) {
			lines = append(lines, l)
		}
	}
	return lines
}

// plainGo runs the go command as a user would after the run, without
// gcdoctor, and returns its combined output.
func plainGo(t *testing.T, goCmd, dir string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), goTestTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestRunGoBuild runs "go build" under Run with an empty build cache: the
// compile must be measured, and what it leaves in the cache must be what
// it would leave without gcdoctor, so that later builds replay nothing and
// a second run on the cached build finds no compile.
func TestRunGoBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	t.Parallel()
	goCmd := goCommand(t)
	mod := tinyModule(t)
	tests := []struct {
		name    string
		goflags string
	}{
		{"wrapper alone", ""},
		{"under the user's own toolexec", "-toolexec=/usr/bin/env"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache, tmp := filepath.Join(t.TempDir(), "cache"), t.TempDir()
			env := goEnv(cache, "GOGC=5", "GOFLAGS="+tt.goflags, "GOTMPDIR="+tmp)
			_, _, stderr, log := runGo(t, goCmd, mod, env, "build", "./p")
			if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
				t.Errorf("the run left %q behind", left)
			}
			compiles := labelled(log, compileLabel)
			if len(compiles) != 1 || compiles[0].Summary.Cycles < 2 {
				t.Fatalf("want one compile of several cycles, labelled %q; got segments %v", compileLabel, log.Segments)
			}
			if strings.Contains(stderr, compileLabel) {
				t.Errorf("the go command printed the compile's output, so it cached some:\n%s", stderr)
			}

			plainEnv := goEnv(cache, "GOGC=5")
			for _, args := range [][]string{{"build", "./p"}, {"vet", "./p"}} {
				if out := plainGo(t, goCmd, mod, plainEnv, args...); len(traceLines(out)) > 0 || strings.Contains(out, compileLabel) {
					t.Errorf("go %s after the run replayed the cache:\n%s", strings.Join(args, " "), out)
				}
			}

			res, _, _, log := runGo(t, goCmd, mod, env, "build", "./p")
			if segs := labelled(log, compileLabel); len(segs) > 0 || res.Replayed > 0 || log.Replayed > 0 {
				t.Errorf("a cached build reported compiles %v, %d lines and %d processes replayed", segs, res.Replayed, log.Replayed)
			}
		})
	}
}

// TestRunGoBuildReplayed runs "go build" under Run on a build cache that a
// build under GODEBUG=gctrace=1 without gcdoctor left gctrace lines in, as
// earlier versions of gcdoctor did: the lines the go command replays are
// passed through but are not read as processes of the run.
func TestRunGoBuildReplayed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	t.Parallel()
	goCmd := goCommand(t)
	mod := tinyModule(t)
	env := goEnv(filepath.Join(t.TempDir(), "cache"), "GOGC=5")
	polluted := plainGo(t, goCmd, mod, append(env[:len(env):len(env)], "GODEBUG=gctrace=1"), "build", "./p")
	if !strings.Contains(polluted, compileLabel) {
		t.Fatalf("a build under gctrace=1 printed no compile output to cache:\n%s", polluted)
	}
	replay := plainGo(t, goCmd, mod, env, "build", "./p")
	replayed := len(traceLines(replay))
	if replayed == 0 {
		t.Fatalf("the cache replays no gctrace lines; the test sets up nothing:\n%s", replay)
	}

	res, _, stderr, log := runGo(t, goCmd, mod, env, "build", "./p")
	if !strings.Contains(stderr, replay) {
		t.Errorf("the replayed output did not come through:\n%s", stderr)
	}
	if res.Replayed != replayed {
		t.Errorf("Replayed = %d; the go command replays %d lines:\n%s", res.Replayed, replayed, replay)
	}
	if segs := labelled(log, compileLabel); len(segs) > 0 {
		t.Errorf("replayed compile output read as processes: %v", segs)
	}
	data, err := os.ReadFile(res.GCTracePath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), compileLabel) {
		t.Errorf("the replayed block is in the log:\n%s", data)
	}
}

// TestRunGoTestBench runs a benchmark with "go test" under Run. go test
// passes the test binary's standard error on to its standard output, and
// the benchmark's hundreds of cycles must be recorded from there, while
// the output still reaches the caller as it was.
func TestRunGoTestBench(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	t.Parallel()
	goCmd := goCommand(t)
	mod := writeModule(t, map[string]string{
		"go.mod": "module example.com/bench\n\ngo 1.22\n",
		"b.go": `package b

var sink []byte

// Alloc allocates 4 MiB in short-lived pieces, about the smallest heap
// goal: a few calls make a collection.
func Alloc() {
	for range 64 {
		sink = make([]byte, 64<<10)
	}
}
`,
		"b_test.go": `package b

import "testing"

func BenchmarkAlloc(b *testing.B) {
	for range b.N {
		Alloc()
	}
}
`,
	})
	// The machine's own build cache: filling an empty one with the
	// packages the testing package needs takes minutes on a small
	// machine. All this test adds to it is keyed by its temporary module
	// and never read again; what a run leaves in a cache is the business
	// of TestRunGoBuild, on caches of its own.
	cache := strings.TrimSpace(plainGo(t, goCmd, mod, os.Environ(), "env", "GOCACHE"))
	if cache == "" || cache == "off" {
		cache = filepath.Join(t.TempDir(), "cache")
	}
	env := goEnv(cache)
	_, stdout, _, log := runGo(t, goCmd, mod, env, "test", "-vet=off", "-run", "^$", "-bench", ".", "-benchtime", "2000x", ".")
	if !strings.Contains(stdout, "BenchmarkAlloc") || !strings.Contains(stdout, "ok  \texample.com/bench") {
		t.Errorf("the benchmark's output did not come through:\n%s", stdout)
	}
	// The compiles run under the default GOGC, which the compiler raises
	// to collect rarely; the test binary is the process of most cycles.
	var bench *gctrace.Segment
	for _, s := range log.Segments {
		if bench == nil || s.Summary.Cycles > bench.Summary.Cycles {
			bench = s
		}
	}
	if bench == nil || bench.Summary.Cycles < 200 {
		t.Fatalf("process of most cycles %v; want the test binary's hundreds", bench)
	}
	if n := len(traceLines(stdout)); n < bench.Summary.Cycles {
		t.Errorf("the caller got %d gctrace lines on standard output, the log %d cycles", n, bench.Summary.Cycles)
	}
}

// TestRunGoCommandToolexec checks that a -toolexec on the go command line,
// which would replace the wrapper, is refused before anything runs.
func TestRunGoCommandToolexec(t *testing.T) {
	goCmd := goCommand(t)
	_, err := Run(context.Background(), Spec{Path: goCmd, Args: []string{"build", "-toolexec", "strace", "."}, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "-toolexec") || !strings.Contains(err.Error(), "GOFLAGS") {
		t.Errorf("Run = %v, want an error saying to set -toolexec in GOFLAGS", err)
	}
}

func TestIsGoCommand(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"cmd/go", true},
		{"golang.org/dl/go1.20.14", true},
		{"golang.org/dl/gotip", true},
		{"cmd/gofmt", false},
		{"example.com/tools/go", false},
	}
	for _, tt := range tests {
		if got := isGoCommand(&buildinfo.BuildInfo{Path: tt.path}); got != tt.want {
			t.Errorf("isGoCommand(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
	if isGoCommand(nil) {
		t.Error("isGoCommand(nil) = true")
	}
	info, err := buildinfo.ReadFile(goCommand(t))
	if err != nil || !isGoCommand(info) {
		t.Errorf("the go command on PATH is not taken for one: %v", err)
	}
}
