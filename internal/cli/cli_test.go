package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/report"
)

var update = flag.Bool("update", false, "rewrite golden files")

// run executes gcdoctor with args and returns stdout, stderr and the exit code.
func run(t *testing.T, stdin string, envs map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return envs[k] }}
	code := e.run(args)
	return out.String(), errb.String(), code
}

const corpus = "../../gctrace/testdata/corpus/"

// TestGolden runs commands and compares their output with testdata/NAME.stdout
// and .stderr; -update rewrites them.
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"seed002", []string{"gctrace", "--go-version", "go1.10", corpus + "seed002-go110-4P.log"}, 0},
		{"deathspiral", []string{"gctrace", "--go-version", "go1.19.5", corpus + "15-go58106-gomemlimit-death-spiral-3P.log"}, 0},
		{"gobuild", []string{"gctrace", corpus + "go-build-cmd-go.gctrace.log"}, 0},
		{"pre15", []string{"gctrace", corpus + "04-go13392-pre15-gcforced-scvg-8P.log"}, 0},
		{"truncated", []string{"gctrace", "testdata/truncated.log"}, 1},
		{"missing", []string{"gctrace", "testdata/does-not-exist.log"}, 1},
		{"empty", []string{"gctrace", "testdata/empty.log"}, 1},
		{"nogc", []string{"gctrace", "testdata/nogc.log"}, 1},
		{"junk", []string{"gctrace", "testdata/junk.bin"}, 1},
		{"failon", []string{"gctrace", "--fail-on", "critical", corpus + "15-go58106-gomemlimit-death-spiral-3P.log"}, 3},
		{"badflag", []string{"gctrace", "--color", "purple", "x.log"}, 2},
		{"explain", []string{"explain", "gc-min-heap"}, 0},
		{"explain-text", []string{"explain", "--format", "text", "gc-min-heap"}, 0},
		{"explain-text-lint", []string{"explain", "--format", "text", "--width", "72", "timeafterloop"}, 0},
		{"explain-color", []string{"explain", "--format", "text", "--color", "always", "forced-gc"}, 0},
		{"doctor-demo", []string{"doctor", "testdata/demo-bundle"}, 0},
		{"whatif-deathspiral", []string{"whatif", "--go-version", "go1.19.5", "--predict-gogc", "100,200", "--predict-memlimit", "2200MiB,3GiB", corpus + "15-go58106-gomemlimit-death-spiral-3P.log"}, 0},
		{"whatif-gobuild", []string{"whatif", corpus + "go-build-cmd-go.gctrace.log"}, 0},
		{"explain-unknown", []string{"explain", "no-such-rule"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := run(t, "", nil, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstderr: %s", code, tt.code, stderr)
			}
			for _, g := range []struct{ ext, got string }{{".stdout", stdout}, {".stderr", stderr}} {
				path := filepath.Join("testdata", tt.name+g.ext)
				if *update {
					if err := os.WriteFile(path, []byte(g.got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update)", err)
				}
				if string(want) != g.got {
					t.Errorf("%s differs (go test ./internal/cli -update to accept):\n--- want\n%s\n--- got\n%s", path, want, g.got)
				}
			}
		})
	}
}

func TestBadInputIsOneLine(t *testing.T) {
	for _, f := range []string{"testdata/does-not-exist.log", "testdata/empty.log", "testdata/nogc.log", "testdata/junk.bin", "testdata/truncated.log"} {
		_, stderr, code := run(t, "", nil, "gctrace", f)
		if code == 0 {
			t.Errorf("%s: exit 0", f)
		}
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "gcdoctor: ") || !strings.Contains(lines[0], filepath.Base(f)) {
			t.Errorf("%s: stderr should be one line naming the file, got %q", f, stderr)
		}
	}
}

func TestStdin(t *testing.T) {
	data, err := os.ReadFile(corpus + "seed002-go110-4P.log")
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, string(data), nil, "gctrace", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Segments []struct {
			Summary struct {
				Cycles       int      `json:"cycles"`
				MaxPauseMS   *float64 `json:"max_pause_ms"`
				GCCPUPercent *float64 `json:"gc_cpu_percent"`
			} `json:"summary"`
		} `json:"segments"`
		Findings []struct {
			ID string `json:"id"`
		} `json:"findings"`
		Inputs []struct {
			Name string `json:"name"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, stdout)
	}
	if len(doc.Segments) != 1 || doc.Segments[0].Summary.Cycles != 9 || doc.Inputs[0].Name != "<stdin>" {
		t.Fatalf("unexpected document: %+v", doc)
	}
	s := doc.Segments[0].Summary
	if s.MaxPauseMS == nil || *s.MaxPauseMS != 3.1 || s.GCCPUPercent == nil || *s.GCCPUPercent < 17 || *s.GCCPUPercent > 18 {
		t.Errorf("summary figures: max pause %v, GC CPU %v", s.MaxPauseMS, s.GCCPUPercent)
	}
	if len(doc.Findings) == 0 || doc.Findings[0].ID == "" {
		t.Errorf("no findings in %s", stdout)
	}
}

func TestNoColor(t *testing.T) {
	args := []string{"gctrace", "--color", "always", corpus + "seed002-go110-4P.log"}
	colored, _, _ := run(t, "", nil, args...)
	if !strings.Contains(colored, "\x1b[") {
		t.Fatalf("--color always printed no escape codes")
	}
	plain, _, _ := run(t, "", map[string]string{"NO_COLOR": "1"}, args...)
	if strings.Contains(plain, "\x1b[") {
		t.Errorf("NO_COLOR set but output has escape codes")
	}
}

func TestWidth(t *testing.T) {
	for _, f := range []string{"seed002-go110-4P.log", "go-build-cmd-go.gctrace.log", "15-go58106-gomemlimit-death-spiral-3P.log", "10-etcd8472-journald-scvg-2P.log"} {
		out, _, _ := run(t, "", nil, "gctrace", "--go-version", "go1.20", corpus+f)
		for i, line := range strings.Split(out, "\n") {
			if n := len([]rune(line)); n > 80 {
				t.Errorf("%s: line %d is %d columns: %q", f, i+1, n, line)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, code := run(t, "", nil, "version")
	if code != 0 || !strings.HasPrefix(out, "gcdoctor ") || !strings.Contains(out, "go1.") {
		t.Errorf("version printed %q (exit %d)", out, code)
	}
}

func TestCompletion(t *testing.T) {
	out, _, code := run(t, "", nil, "completion", "bash")
	if code != 0 || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d, %d bytes", code, len(out))
	}
}

// TestJSONKeysDocumented keeps docs/json.md honest: every key the JSON
// output uses must be documented there.
func TestJSONKeysDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, _ := run(t, "", nil, "gctrace", "--json", "--cycles", "--go-version", "go1.19", corpus+"15-go58106-gomemlimit-death-spiral-3P.log", corpus+"10-etcd8472-journald-scvg-2P.log")
	heapOut, _, _ := run(t, "", nil, "heap", "--json", "--ops", "100", "../../heapprof/testdata/profiles/copy.pprof")
	whatOut, _, _ := run(t, "", nil, "whatif", "--json", "--predict-memlimit", "64MiB", "--budget", "256MiB", "../../pacer/testdata/real/json-marshal.gogc100.r1.log")
	lintOut, _, _ := run(t, "", nil, "lint", "--json", "--dir", "../../lint/testdata/mod", "./app")
	traceOut, _, _ := run(t, "", nil, "trace", "--json", "../../exectrace/testdata/small.trace")
	var tv any
	if err := json.Unmarshal([]byte(traceOut), &tv); err != nil {
		t.Fatal(err)
	}
	diffOut, _, _ := run(t, "", nil, "diff", "--json", "../../compare/testdata/before.txt", "../../compare/testdata/after.txt")
	var dv any
	if err := json.Unmarshal([]byte(diffOut), &dv); err != nil {
		t.Fatal(err)
	}
	// A bundle assembled from fixtures: gctrace, an allocs profile, a trace.
	bdir := t.TempDir()
	for src, dst := range map[string]string{
		corpus + "seed002-go110-4P.log":                 "gctrace.log",
		"../../heapprof/testdata/profiles/bigbuf.pprof": "allocs.pb.gz",
		"../../exectrace/testdata/small.trace":          "trace.out",
	} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bdir, dst), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docOut, docErr, _ := run(t, "", nil, "doctor", "--json", "--budget", "1GiB", "--source", "./testdata/gcloop", bdir)
	var docv any
	if err := json.Unmarshal([]byte(docOut), &docv); err != nil {
		t.Fatalf("doctor: %v\n%s", err, docErr)
	}
	var v, hv, wv, lv any
	if err := json.Unmarshal([]byte(lintOut), &lv); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(whatOut), &wv); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(heapOut), &hv); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				keys[k] = true
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	walk(hv)
	walk(wv)
	walk(lv)
	walk(tv)
	walk(dv)
	walk(docv)
	for k := range keys {
		if k == "line_kinds" || strings.Contains(string(doc), "`"+k+"`") || strings.Contains(string(doc), "."+k+"`") {
			continue
		}
		// line_kinds' own keys are kind names, documented in its row.
		if strings.Contains(string(doc), "`"+k+"`") || isKindName(k) {
			continue
		}
		t.Errorf("JSON key %q is not documented in docs/json.md", k)
	}
}

func isKindName(k string) bool {
	switch k {
	case "text", "blank", "cycle", "gc-forced", "scavenge", "pacer", "header", "error", "value", "low", "high", "channel", "select", "sync", "network", "sleep", "gc", "other":
		return true
	}
	return false
}

// TestCatalogue keeps docs/rules.md generated from the rules' and checks'
// own documentation; -update rewrites it.
func TestCatalogue(t *testing.T) {
	const path = "../../docs/rules.md"
	got := report.Catalogue()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("docs/rules.md is stale: go test ./internal/cli -run TestCatalogue -update")
	}
}

// BenchmarkDoctorDemoBundle times gcdoctor doctor on the demo's saved
// bundle: gctrace, allocs profile and execution trace read and joined
// into one diagnosis.
func BenchmarkDoctorDemoBundle(b *testing.B) {
	for b.Loop() {
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
		if code := e.run([]string{"doctor", "testdata/demo-bundle"}); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}

// TestReportFormats writes each report format of the demo bundle's
// diagnosis to a file with -o, and checks the usage errors of --format.
func TestReportFormats(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		format string
		want   []string // in the file
	}{
		{"markdown", []string{"### What to do first", "`heap-large-buffer`"}},
		{"html", []string{"<!DOCTYPE html>", "Content-Security-Policy", "data:image/svg"}},
		// The located findings are in ../demo, outside the directory taken as
		// the checkout, so the log has rules but no results.
		{"sarif", []string{`"version": "2.1.0"`, `"id": "heap-large-buffer"`}},
		{"json", []string{`"schema_version"`, `"cross_checks"`, `"tuning"`}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			out := filepath.Join(dir, "report."+tt.format)
			_, stderr, code := run(t, "", nil, "doctor", "--format", tt.format, "-o", out, "testdata/demo-bundle")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(data), w) {
					t.Errorf("%s report lacks %q", tt.format, w)
				}
			}
			if tt.format == "json" && strings.Contains(string(data), `"cycles": [`) {
				t.Errorf("doctor JSON lists the cycles without --cycles")
			}
		})
	}
	for _, args := range [][]string{
		{"doctor", "--format", "pdf", "testdata/demo-bundle"},
		{"doctor", "--json", "--format", "html", "testdata/demo-bundle"},
	} {
		if _, _, code := run(t, "", nil, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
}

// TestStderrEscaped: a file name that carries control sequences is quoted
// in the error visibly, not acted on by the terminal.
func TestStderrEscaped(t *testing.T) {
	_, stderr, code := run(t, "", nil, "gctrace", "missing\x1b]0;pwned\x07\u202e.log")
	if code != 1 || strings.ContainsAny(stderr, "\x1b\x07\u202e") || !strings.Contains(stderr, `missing\x1b]0;pwned\x07\u202e.log`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
