package exectrace

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// workDir holds the programs and traces the tests build and record, shared
// by every test of the run and removed at the end.
var workDir string

func TestMain(m *testing.M) {
	if helperMain() {
		return
	}
	dir, err := os.MkdirTemp("", "exectrace-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goCommand returns the go command, skipping the test without one.
func goCommand(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("go command not found")
	}
	return p
}

var cache struct {
	sync.Mutex
	done map[string]string
}

// cached runs fn once per test run for key and returns its result; a
// failure is reported to every test that asks.
func cached(tb testing.TB, key string, fn func() (string, error)) string {
	tb.Helper()
	cache.Lock()
	defer cache.Unlock()
	if cache.done == nil {
		cache.done = map[string]string{}
	}
	if v, ok := cache.done[key]; ok {
		if strings.HasPrefix(v, "error: ") {
			tb.Fatal(v)
		}
		return v
	}
	v, err := fn()
	if err != nil {
		cache.done[key] = "error: " + err.Error()
		tb.Fatal(err)
	}
	cache.done[key] = v
	return v
}

// buildProgram builds testdata/<name> and returns the binary's path.
func buildProgram(tb testing.TB, name string) string {
	tb.Helper()
	goCmd := goCommand(tb)
	return cached(tb, "build "+name, func() (string, error) {
		bin := filepath.Join(workDir, name)
		out, err := exec.Command(goCmd, "build", "-o", bin, "./testdata/"+name).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("building %s: %v\n%s", name, err, out)
		}
		return bin, nil
	})
}

// concatRun is one run of the concat program.
type concatRun struct {
	trace  string // trace file
	stderr []byte // its standard error, with the gctrace lines
}

// recordConcat runs the concat program (batched or not) with
// GODEBUG=gctrace=1 and returns its trace and standard error.
func recordConcat(tb testing.TB, batched bool) concatRun {
	tb.Helper()
	bin := buildProgram(tb, "concat")
	name := fmt.Sprintf("concat-batched=%v", batched)
	path := cached(tb, "run "+name, func() (string, error) {
		path := filepath.Join(workDir, name+".trace")
		cmd := exec.Command(bin, "-trace", path, fmt.Sprintf("-batched=%v", batched))
		cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("%s: %v\n%s", name, err, stderr.Bytes())
		}
		return path, os.WriteFile(path+".stderr", stderr.Bytes(), 0o644)
	})
	stderr, err := os.ReadFile(path + ".stderr")
	if err != nil {
		tb.Fatal(err)
	}
	return concatRun{trace: path, stderr: stderr}
}

// benchTrace records `go test -bench=bench -benchtime=benchtime` of a
// standard library package and returns the trace's path.
func benchTrace(tb testing.TB, pkg, bench, benchtime string) string {
	tb.Helper()
	goCmd := goCommand(tb)
	key := pkg + " " + bench + " " + benchtime
	return cached(tb, "bench "+key, func() (string, error) {
		path := filepath.Join(workDir, strings.NewReplacer("/", "_", " ", "_", "$", "", "|", "_", ".", "_").Replace(key)+".trace")
		cmd := exec.Command(goCmd, "test", "-run=^$", "-bench="+bench, "-benchtime="+benchtime, "-trace="+path, pkg)
		cmd.Dir = workDir
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go test -bench %s: %v\n%s", pkg, err, out)
		}
		return path, nil
	})
}

// stdlibBenches are the benchmark traces the tests read: fast subsets of
// each package's benchmarks at -benchtime=100ms (about 1–6 MB of trace
// each, varying from run to run).
var stdlibBenches = []struct{ pkg, bench string }{
	{"encoding/json", "CodeEncoder|CodeDecoder"},
	{"compress/flate", "Encode/Digits/Speed"},
	{"go/parser", "."},
	{"net/http", "ClientServer$"},
}

// largeTrace records the trace the benchmarks and the comparison with go
// tool trace read: net/http's client-server benchmark for a fixed 5000
// iterations, 4–6 MB of trace with some 1M events.
func largeTrace(tb testing.TB) string {
	tb.Helper()
	return benchTrace(tb, "net/http", "ClientServer$", "5000x")
}

// analyzeFile analyzes a trace file, failing the test on any error.
func analyzeFile(tb testing.TB, path string) *Result {
	tb.Helper()
	res, err := AnalyzeFile(path, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}
