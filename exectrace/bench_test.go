package exectrace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/exp/trace"
)

// benchData returns the trace the benchmarks read (see largeTrace).
func benchData(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile(largeTrace(b))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkAnalyze(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(bytes.NewReader(data), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadEventLoop is the baseline: the trace reader alone, reading
// every event and doing nothing with it.
func BenchmarkReadEventLoop(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readEvents(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func readEvents(r io.Reader) (int, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		_, err := tr.ReadEvent()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// helperEnv names the trace a re-executed test binary analyzes, so that its
// time and peak memory can be measured on their own.
const helperEnv = "EXECTRACE_ANALYZE_HELPER"

// measureEnv holds a command, as a JSON list, that a re-executed test
// binary runs and measures. The extra process matters on Linux: a child
// started with vfork shares its parent's memory until exec, and exec carries
// the parent's peak resident size over into the child's, so a child of the
// test process (which has read large traces) would report at least the test
// process's peak. A fresh intermediate process has a small peak of its own.
const measureEnv = "EXECTRACE_MEASURE_HELPER"

// helperMain runs in place of the tests when helperEnv or measureEnv is
// set, and reports whether it did.
func helperMain() bool {
	if spec := os.Getenv(measureEnv); spec != "" {
		var args []string
		if err := json.Unmarshal([]byte(spec), &args); err != nil || len(args) == 0 {
			fmt.Fprintln(os.Stderr, "bad command", spec)
			os.Exit(2)
		}
		cmd := exec.Command(args[0], args[1:]...)
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, measureEnv+"=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Stdout = io.Discard
		cmd.Stderr = os.Stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		wall := time.Since(start)
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			fmt.Fprintln(os.Stderr, "no rusage")
			os.Exit(3)
		}
		fmt.Println(wall.Nanoseconds(), ru.Maxrss)
		os.Exit(0)
	}
	path := os.Getenv(helperEnv)
	if path == "" {
		return false
	}
	res, err := AnalyzeFile(path, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(res.Events, "events")
	os.Exit(0)
	return true
}

// measure runs a command through a fresh copy of the test binary and
// returns its wall time and peak resident memory (bytes).
func measure(tb testing.TB, env []string, args ...string) (time.Duration, int64) {
	tb.Helper()
	if runtime.GOOS != "linux" {
		tb.Skip("peak memory is measured the Linux way")
	}
	spec, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), measureEnv+"="+string(spec))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("%v: %v\n%s", args, err, stderr.Bytes())
	}
	var ns, kb int64
	if _, err := fmt.Sscan(string(out), &ns, &kb); err != nil {
		tb.Fatalf("measuring %v: output %q", args, out)
	}
	return time.Duration(ns), kb << 10 // Linux reports KiB
}

// goToolTrace returns the path of go tool trace and a benchmark trace to
// read with it.
func goToolTrace(tb testing.TB) (tool, path string) {
	tb.Helper()
	out, err := exec.Command(goCommand(tb), "tool", "-n", "trace").Output()
	if err != nil {
		tb.Skipf("go tool -n trace: %v", err)
	}
	return strings.TrimSpace(string(out)), largeTrace(tb)
}

// BenchmarkVersusGoToolTrace compares Analyze, in a process of its own,
// with `go tool trace -pprof=sched` on the same benchmark trace: wall time
// and peak memory, reported as the ratios wall-ratio and rss-ratio (ours
// over go tool trace's; a stream is expected to need a fraction of both).
// A timing comparison is a benchmark, not a test: on a loaded machine the
// two runs share the CPUs unevenly.
func BenchmarkVersusGoToolTrace(b *testing.B) {
	tool, path := goToolTrace(b)
	var toolWall, ourWall time.Duration
	var toolRSS, ourRSS int64
	for b.Loop() {
		w, m := measure(b, nil, tool, "-pprof=sched", path)
		toolWall += w
		toolRSS = max(toolRSS, m)
		w, m = measure(b, []string{helperEnv + "=" + path}, os.Args[0], "-test.run=^$")
		ourWall += w
		ourRSS = max(ourRSS, m)
	}
	b.ReportMetric(float64(ourWall)/float64(toolWall), "wall-ratio")
	b.ReportMetric(float64(ourRSS)/float64(toolRSS), "rss-ratio")
	b.ReportMetric(float64(ourRSS>>20), "MiB-peak")
}

// TestMemoryVersusGoToolTrace checks that Analyze, which streams a trace,
// peaks at a fraction of the memory of go tool trace, which loads it whole.
// Peak memory does not depend on how busy the machine is; the run of both
// on a benchmark trace takes long, so it runs with GCDOCTOR_LONG=1.
func TestMemoryVersusGoToolTrace(t *testing.T) {
	if os.Getenv("GCDOCTOR_LONG") == "" {
		t.Skip("records a benchmark trace and runs go tool trace; set GCDOCTOR_LONG=1 to run it")
	}
	tool, path := goToolTrace(t)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	_, toolRSS := measure(t, nil, tool, "-pprof=sched", path)
	_, ourRSS := measure(t, []string{helperEnv + "=" + path}, os.Args[0], "-test.run=^$")
	memRatio := float64(ourRSS) / float64(toolRSS)
	t.Logf("%s (%.1f MB): go tool trace -pprof=sched peaks at %d MB, Analyze at %d MB: ×%.3f",
		filepath.Base(path), float64(fi.Size())/1e6, toolRSS>>20, ourRSS>>20, memRatio)
	if memRatio > 0.125 {
		t.Errorf("Analyze peaks at %.3f× go tool trace's memory, want ≤ 0.125", memRatio)
	}
}
