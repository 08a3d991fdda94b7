package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/internal/flagargs"
)

// runCmp runs one of the comparing commands through a root that holds only
// them, handling errors as env.run does, and returns stdout, stderr and the
// exit code.
func runCmp(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }}
	root := &cobra.Command{Use: "gcdoctor", SilenceUsage: true, SilenceErrors: true}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(newDiffCmd(e), newSweepCmd(e), newBenchCmd(e))
	root.SetArgs(args)
	root.SetIn(e.stdin)
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.Execute()
	code := ExitOK
	if err != nil {
		var xe *exitError
		var ue *usageError
		switch {
		case errors.As(err, &xe):
			if xe.err != nil {
				fmt.Fprintf(&errb, "gcdoctor: %v\n", xe.err)
			}
			code = xe.code
		case errors.As(err, &ue) || flagargs.IsUsageError(err):
			fmt.Fprintf(&errb, "gcdoctor: %v\n", err)
			code = ExitUsage
		default:
			fmt.Fprintf(&errb, "gcdoctor: %v\n", err)
			code = ExitError
		}
	}
	return out.String(), errb.String(), code
}

const (
	benchBefore = "../../compare/testdata/before.txt"
	benchAfter  = "../../compare/testdata/after.txt"
	realLogs    = "../../pacer/testdata/real/"
)

// rowLine returns the line of a text table that starts with name, after
// the section header that starts with section.
func rowLine(t *testing.T, out, section, name string) string {
	t.Helper()
	in := false
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, section) {
			in = true
			continue
		}
		if in && l == "" {
			in = false
		}
		if in && strings.HasPrefix(strings.TrimSpace(l), name) {
			return l
		}
	}
	t.Fatalf("no %q row in section %q:\n%s", name, section, out)
	return ""
}

func TestDiffBenchmarks(t *testing.T) {
	stdout, stderr, code := runCmp(t, "diff", "--color", "never", benchBefore, benchAfter)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tests := []struct {
		section, row string
		want         []string // substrings of the row
	}{
		{"sec/op", "Join-2", []string{"-95.", "p=0.002 n=6", "±"}},
		{"sec/op", "Itoa-2", []string{"~ (p="}},
		{"B/op", "Join-2", []string{"-97.74%", "p=0.002"}},
		{"allocs/op", "Itoa-2", []string{"~ (p=1.000 n=6)¹"}},
	}
	for _, tt := range tests {
		line := rowLine(t, stdout, tt.section, tt.row)
		for _, w := range tt.want {
			if !strings.Contains(line, w) {
				t.Errorf("%s %s: %q lacks %q", tt.section, tt.row, line, w)
			}
		}
	}
	if !strings.Contains(stdout, "¹ all samples are equal") {
		t.Errorf("no footnote for equal samples:\n%s", stdout)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
}

func TestDiffBenchmarksJSON(t *testing.T) {
	stdout, stderr, code := runCmp(t, "diff", "--json", benchBefore, benchAfter)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		SchemaVersion int    `json:"schema_version"`
		Kind          string `json:"kind"`
		Columns       []struct {
			Label string `json:"label"`
		} `json:"columns"`
		Rows []struct {
			Benchmark, Metric string
			Cells             []struct {
				N      int       `json:"n"`
				Values []float64 `json:"values"`
				Median *float64  `json:"median"`
				Delta  *struct {
					Percent     *float64 `json:"percent"`
					P           float64  `json:"p"`
					Significant bool     `json:"significant"`
					Improvement bool     `json:"improvement"`
				} `json:"delta"`
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if doc.SchemaVersion != 1 || doc.Kind != "diff" || len(doc.Columns) != 2 {
		t.Errorf("header: %+v", doc)
	}
	found := 0
	for _, r := range doc.Rows {
		if r.Metric != "sec/op" {
			continue
		}
		if len(r.Cells) != 2 || r.Cells[0].Delta != nil || r.Cells[1].Delta == nil || r.Cells[1].N != 6 {
			t.Fatalf("%s: cells %+v", r.Benchmark, r.Cells)
		}
		d := r.Cells[1].Delta
		switch r.Benchmark {
		case "Join-2":
			found++
			if !d.Significant || d.P >= 0.05 || !d.Improvement || d.Percent == nil || *d.Percent > -90 {
				t.Errorf("Join-2: %+v", *d)
			}
		case "Itoa-2":
			found++
			if d.Significant {
				t.Errorf("Itoa-2 significant: %+v", *d)
			}
		}
	}
	if found != 2 {
		t.Errorf("found %d of the 2 sec/op rows", found)
	}
}

// TestDiffGCTrace compares three runs at GOGC=100 with three at GOGC=400:
// the GC count drops by more than two thirds, but three runs a side can never
// reach p < 0.05 with the U test (its smallest p-value for 3+3 is 0.1), so
// the change must show as "~" with the warning that says so.
func TestDiffGCTrace(t *testing.T) {
	list := func(setting string) string {
		var files []string
		for r := 1; r <= 3; r++ {
			files = append(files, fmt.Sprintf("%sjson-marshal.gogc%s.r%d.log", realLogs, setting, r))
		}
		return strings.Join(files, ",")
	}
	stdout, stderr, code := runCmp(t, "diff", "--color", "never", list("100"), list("400"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	line := rowLine(t, stdout, "per run", "GC count")
	for _, w := range []string{"107", "33", "~ (p=0.100 n=3)"} {
		if !strings.Contains(line, w) {
			t.Errorf("GC count row %q lacks %q", line, w)
		}
	}
	for _, w := range []string{"need >= 4 samples to detect a difference at alpha level 0.05", "need >= 6 samples for confidence interval", "GC CPU (%)", "p99 pause (ms)", "peak heap (MiB)"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}

	// The JSON keeps the change even though it is not significant.
	stdout, _, _ = runCmp(t, "diff", "--json", list("100"), list("400"))
	var doc struct {
		Rows []struct {
			Metric string
			Cells  []struct {
				Median float64
				Delta  *struct {
					Percent     float64
					Significant bool
					Warnings    []string
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) == 0 || doc.Rows[0].Metric != "GC count" {
		t.Fatalf("rows: %+v", doc.Rows)
	}
	d := doc.Rows[0].Cells[1].Delta
	if d == nil || d.Significant || d.Percent > -65 || len(d.Warnings) == 0 {
		t.Errorf("GC count delta: %+v", d)
	}
}

func TestDiffBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing", []string{"diff", "testdata/compare/does-not-exist.txt", benchAfter}, 1, "no such file"},
		{"not evidence", []string{"diff", "../../compare/testdata/notbench.txt", benchAfter}, 1, "neither benchmark results nor gctrace output"},
		{"nothing in common", []string{"diff", benchBefore, realLogs + "json-marshal.gogc100.r1.log"}, 1, "nothing to compare"},
		{"one argument", []string{"diff", benchBefore}, 2, "accepts 2 arg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCmp(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if stdout != "" {
				t.Errorf("stdout: %q", stdout)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q lacks %q", stderr, tt.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
				t.Errorf("stderr has %d lines: %q", n+1, stderr)
			}
		})
	}
}

// allocProgram allocates 256 MiB in 64 KiB blocks while keeping 4 MiB
// live: a fixed amount of work, so that GC counts compare across settings.
const allocProgram = `package main

import (
	"os"
	"runtime"
)

func main() {
	live := make([][]byte, 64)
	for i := range 4096 {
		live[i%64] = make([]byte, 64<<10)
	}
	if len(os.Args) > 1 || os.Getenv("GOGC") == "7" {
		// Let the collector finish printing first, so that the message
		// is a line of its own and not cut into a gc line.
		runtime.GC()
		os.Stderr.WriteString("failing as asked\n")
		os.Exit(4)
	}
}
`

// steadyProgram does the same work at a pace the collector keeps up with
// (every block is filled before the next is allocated), so its GC count is
// steady from run to run: a tiny program allocating as fast as it can
// outruns the GC and its counts scatter widely.
const steadyProgram = `package main

func main() {
	live := make([][]byte, 256)
	sum := 0
	for i := range 4096 {
		b := make([]byte, 64<<10)
		for j := range b {
			b[j] = byte(i + j)
		}
		sum += int(b[i%len(b)])
		live[i%256] = b
	}
	if sum < 0 {
		println(sum)
	}
}
`

// buildAllocProgram builds allocProgram and returns its path.
func buildAllocProgram(t *testing.T) string {
	t.Helper()
	return buildProgram(t, allocProgram)
}

// buildProgram builds a one-file program and returns its path.
func buildProgram(t *testing.T, source string) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("collect runs programs on Linux only")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "alloc")
	cmd := exec.Command(goTool, "build", "-o", bin, src)
	cmd.Env = append(os.Environ(), "GO111MODULE=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestSweep(t *testing.T) {
	bin := buildAllocProgram(t)
	stdout, stderr, code := runCmp(t, "sweep", "--json", "--gogc", "50,400", "--count", "3", "--", bin)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr: %q", stderr)
	}
	var doc struct {
		Kind    string
		Command []string
		Columns []struct {
			Label string
			GOGC  *int
		}
		Rows []struct {
			Metric string
			Cells  []struct {
				N         int
				Median    float64
				Predicted *struct{ Value float64 }
			}
		}
		Model *struct {
			FromColumn int `json:"from_column"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if doc.Kind != "sweep" || len(doc.Columns) != 2 || doc.Columns[0].Label != "GOGC=50" || doc.Columns[1].GOGC == nil || *doc.Columns[1].GOGC != 400 {
		t.Errorf("header: %+v", doc)
	}
	metrics := map[string]bool{}
	for _, r := range doc.Rows {
		metrics[r.Metric] = true
		for i, c := range r.Cells {
			// collect cannot always sample the RSS of so short a run.
			if c.N != 3 && r.Metric != "peak RSS" {
				t.Errorf("%s column %d: n=%d, want 3", r.Metric, i, c.N)
			}
		}
		if r.Metric == "GC count" {
			if r.Cells[0].Median <= r.Cells[1].Median {
				t.Errorf("GC count at GOGC=50 (%v) not above GOGC=400 (%v)", r.Cells[0].Median, r.Cells[1].Median)
			}
			if doc.Model != nil && (r.Cells[0].Predicted == nil || r.Cells[1].Predicted == nil) {
				t.Errorf("model fitted but no GC count prediction: %+v", r.Cells)
			}
		}
	}
	for _, m := range []string{"wall time", "peak RSS", "GC count", "GC CPU", "p99 pause", "peak heap"} {
		if !metrics[m] {
			t.Errorf("no %s row", m)
		}
	}

	// The text report fits in 80 columns and names the baseline.
	stdout, _, code = runCmp(t, "sweep", "--color", "never", "--gogc", "50,400", "--count", "1", "--", bin)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{"GC count", "vs GOGC=50", "GOGC=400"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("text lacks %q:\n%s", w, stdout)
		}
	}
	for _, l := range strings.Split(stdout, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
}

func TestSweepBadInput(t *testing.T) {
	bin := buildAllocProgram(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		// The program's last line is shown when the runtime's own output
		// does not cut into it at exit, which the test cannot promise.
		{"failing program", []string{"sweep", "--count", "1", "--", bin, "fail"}, 1, "GOGC=100, run 1: exit status 4"},
		{"missing program", []string{"sweep", "--count", "1", "--", "testdata/compare/no-such-program"}, 1, "no-such-program"},
		{"no dash", []string{"sweep", bin}, 2, "put the program after --"},
		{"bad gogc", []string{"sweep", "--gogc", "fast", "--", bin}, 2, "--gogc fast"},
		{"prebuilt with goexperiment", []string{"sweep", "--count", "1", "--goexperiment", "greenteagc,nogreenteagc", "--", bin}, 2, "GOEXPERIMENT is read when a program is built, so a prebuilt binary cannot be switched"},
		{"bad goexperiment", []string{"sweep", "--goexperiment", "Green", "--", bin}, 2, `--goexperiment: GOEXPERIMENT "Green"`},
		{"bench of a binary with goexperiment", []string{"bench", "--goexperiment", "nogreenteagc", bin}, 2, "is a prebuilt test binary, and GOEXPERIMENT is read at build time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCmp(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout: %q", stdout)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q lacks %q", stderr, tt.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
				t.Errorf("stderr has %d lines: %q", n+1, stderr)
			}
		})
	}
}

func TestBench(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("collect runs programs on Linux only")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	// 100000 iterations of Join allocate about 190 MB: some 60 cycles at
	// GOGC=100, enough to fit the pacer model from the first run.
	stdout, stderr, code := runCmp(t, "bench", "--json", "--gogc", "100,400", "--count", "2",
		"--benchtime", "100000x", "--bench", "Join", "../../compare/testdata/benchsrc", "--", "-test.cpu=1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Kind  string
		Model *struct{ FromColumn int }
		Rows  []struct {
			Benchmark, Metric string
			Cells             []struct {
				N         int
				Predicted *struct{ Value float64 }
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	seen := map[string]bool{}
	for _, r := range doc.Rows {
		seen[r.Benchmark+" "+r.Metric] = true
		// With -benchtime=Nx every run does the same work, and the pacer
		// model fitted from the first run predicts the GC count of each
		// setting; the benchmark's own rows have no prediction.
		if r.Metric == "GC count" {
			for i, c := range r.Cells {
				if c.Predicted == nil || c.Predicted.Value < 1 {
					t.Errorf("GC count, column %d: prediction %+v", i, c.Predicted)
				}
			}
		}
		if r.Benchmark != "" && r.Cells[0].Predicted != nil {
			t.Errorf("%s %s: a benchmark row with a prediction", r.Benchmark, r.Metric)
		}
		if r.Metric == "peak RSS" {
			continue // unknown for a run too short to be sampled
		}
		if len(r.Cells) != 2 || r.Cells[0].N != 2 || r.Cells[1].N != 2 {
			t.Errorf("%s %s: cells %+v", r.Benchmark, r.Metric, r.Cells)
		}
	}
	for _, w := range []string{"Join sec/op", "Join B/op", "Join allocs/op", " GC count", " wall time"} {
		if !seen[w] {
			t.Errorf("no row %q in %v", w, seen)
		}
	}
	if doc.Kind != "bench" || seen["Itoa sec/op"] {
		t.Errorf("kind %q, rows %v", doc.Kind, seen)
	}
	if doc.Model == nil || doc.Model.FromColumn != 0 {
		t.Errorf("model %+v, want one fitted from column 0", doc.Model)
	}

	// Without a fixed iteration count the runs do different work: no
	// predictions, and a note says why.
	stdout, stderr, code = runCmp(t, "bench", "--color", "never", "--gogc", "100,400", "--count", "1",
		"--bench", "Join", "--benchtime", "20ms", "../../compare/testdata/benchsrc", "--", "-test.cpu=1")
	if code != 0 || strings.Contains(stdout, "predicted") || !strings.Contains(stdout, "-benchtime=Nx fixes both") {
		t.Errorf("bench without Nx: exit %d, stderr %q:\n%s", code, stderr, stdout)
	}

	_, stderr, code = runCmp(t, "bench", "--count", "1", "./testdata/compare/no-such-package")
	if code != 1 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "no-such-package") {
		t.Errorf("missing package: exit %d, stderr %q", code, stderr)
	}
}

// TestSweepOneSettingFails: the failing setting is reported with its exit
// status and output, and the others still run and are compared.
func TestSweepOneSettingFails(t *testing.T) {
	bin := buildAllocProgram(t)
	stdout, stderr, code := runCmp(t, "sweep", "--gogc", "100,7,400", "--count", "2", "--", bin)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr, "GOGC=7, run 1: exit status 4") {
		t.Errorf("stderr %q does not name the failing setting and its output", stderr)
	}
	if !strings.Contains(stdout, "GOGC=400") || !strings.Contains(stdout, "GC count") {
		t.Errorf("the other settings were not compared:\n%s", stdout)
	}
}

// TestSweepSameSettingTwice: two columns of the same setting must not
// differ significantly. At alpha 0.05 a comparison of equal settings is
// "significant" by chance one time in twenty, so one retry is allowed: a
// real bias fails both.
func TestSweepSameSettingTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("up to 24 runs")
	}
	bin := buildProgram(t, steadyProgram)
	var last string
	for attempt := 0; attempt < 2; attempt++ {
		if last = sameSettingSignificant(t, bin); last == "" {
			return
		}
	}
	t.Errorf("the same setting differs from itself twice: %s", last)
}

// sameSettingSignificant sweeps GOGC=100 against itself and returns the
// first significant difference in GC count or peak heap, or "".
func sameSettingSignificant(t *testing.T, bin string) string {
	t.Helper()
	stdout, stderr, code := runCmp(t, "sweep", "--json", "--gogc", "100,100", "--count", "6", "--", bin)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Rows []struct {
			Metric string `json:"metric"`
			Cells  []struct {
				Delta *struct {
					Significant bool   `json:"significant"`
					Text        string `json:"text"`
				} `json:"delta"`
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Rows {
		if r.Metric != "GC count" && r.Metric != "peak heap" {
			continue // times and RSS can drift on a busy machine
		}
		if d := r.Cells[1].Delta; d == nil {
			t.Fatalf("%s: no comparison", r.Metric)
		} else if d.Significant {
			return r.Metric + ": " + d.Text
		}
	}
	return ""
}
