package cli

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/internal/demo"
)

// TestMain lets the test binary stand in for gcdoctor when a command it
// runs (demo) starts gcdoctor again as a child process.
func TestMain(m *testing.M) {
	if os.Getenv("GCDOCTOR_TEST_AS_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// buildGCLoop builds testdata/gcloop, a real program that forces GCs.
func buildGCLoop(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	bin := filepath.Join(t.TempDir(), "gcloop")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/gcloop")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building gcloop: %v\n%s", err, out)
	}
	return bin
}

func TestRunForcedGC(t *testing.T) {
	bin := buildGCLoop(t)
	dir := filepath.Join(t.TempDir(), "evidence")
	stdout, stderr, code := run(t, "", nil, "run", "--json", "--out", dir, "--", bin, "-rounds", "5000")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// The program's own stdout comes first, then the JSON document.
	i := strings.Index(stdout, "{\n")
	if i < 0 || !strings.Contains(stdout[:i], "GC spend avg") {
		t.Fatalf("program output or JSON missing:\n%s", stdout)
	}
	var doc struct {
		Run struct {
			Command      []string `json:"command"`
			ExitCode     int      `json:"exit_code"`
			PeakRSSBytes int64    `json:"peak_rss_bytes"`
		} `json:"run"`
		GoVersion string `json:"go_version"`
		Segments  []struct {
			Summary struct {
				Cycles int `json:"cycles"`
				Forced int `json:"forced_cycles"`
			} `json:"summary"`
		} `json:"segments"`
		Findings []struct {
			ID string `json:"id"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout[i:]), &doc); err != nil {
		t.Fatalf("bad JSON: %v", err)
	}
	if doc.Run.Command[0] != bin || doc.Run.PeakRSSBytes < 0 || !strings.HasPrefix(doc.GoVersion, "go1.") {
		t.Errorf("run info: %+v, go version %q", doc.Run, doc.GoVersion)
	}
	// The peak is what the samples and the exit's accounting saw: on a
	// loaded machine a short run may end before its first sample, and
	// only then may the peak be unknown (0).
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := b.RSS()
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if s.RSS > doc.Run.PeakRSSBytes {
			t.Errorf("peak RSS %d bytes, below a sample of %d bytes at %v", doc.Run.PeakRSSBytes, s.RSS, s.Elapsed)
		}
	}
	if len(doc.Segments) != 1 || doc.Segments[0].Summary.Forced < 3 || doc.Segments[0].Summary.Forced*5 < doc.Segments[0].Summary.Cycles {
		t.Fatalf("want one process whose cycles are mostly forced, got %+v", doc.Segments)
	}
	var ids []string
	for _, f := range doc.Findings {
		ids = append(ids, f.ID)
	}
	if !slices.Contains(ids, "forced-gc") {
		t.Errorf("runtime.GC in a loop not diagnosed: findings %v", ids)
	}
	for _, name := range []string{"gctrace.log", "meta.json", "rss.csv"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("bundle: %v", err)
		}
	}
}

func TestRunExitStatus(t *testing.T) {
	bin := buildGCLoop(t)
	_, stderr, code := run(t, "", nil, "run", "--", bin, "-rounds", "200", "-exit", "7")
	if code != 7 {
		t.Errorf("exit %d, want the program's 7\n%s", code, stderr)
	}
	// doctor -- CMD passes the status on too: a CI step that runs failing
	// tests under it must fail.
	_, stderr, code = run(t, "", nil, "doctor", "--", bin, "-rounds", "200", "-exit", "3")
	if code != 3 {
		t.Errorf("doctor: exit %d, want the program's 3\n%s", code, stderr)
	}
}

func TestRunBadCommands(t *testing.T) {
	tests := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"run", "--", "./no-such-program"}, "no-such-program", 1},
		{[]string{"run", "--", "true"}, "no GC cycle", 1},
		{[]string{"run", "--", "false"}, "no GC cycle", 1},
		{[]string{"run"}, "requires at least 1 arg", 2},
	}
	for _, tt := range tests {
		_, stderr, code := run(t, "", nil, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}

// TestDemo runs the demo end to end with a small load: both servers are
// real child processes. Timing varies by machine, so only what does not
// depend on it is checked: the diagnosis names the line, the comparison has
// its statistics, and the bundles it leaves diagnose again to the same
// effect, the problem server collecting far more often than the fixed one.
func TestDemo(t *testing.T) {
	if os.Getenv("GCDOCTOR_LONG") == "" {
		t.Skip("runs two servers under load: a long test; set GCDOCTOR_LONG=1 to run it")
	}
	if testing.Short() {
		t.Skip("runs two servers under load")
	}
	t.Setenv("GCDOCTOR_TEST_AS_MAIN", "1")
	out := t.TempDir()
	stdout, stderr, code := run(t, "", nil, "demo", "--requests", "120", "--concurrency", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", code, stderr, stdout)
	}
	for _, want := range []string{"Diagnosis of the problem server", "What to do first", "requests (req/s)", "GC cycles", "p=",
		"server.go:", "demo.newBuf", "heap-large-buffer", "too large for stack", filepath.Join(out, "problem")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
	if page, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(page), "data:image/svg") {
		t.Errorf("report.html: %v, or no chart in it", err)
	}
	cycles := func(variant string) int {
		docOut, docErr, code := run(t, "", nil, "doctor", "--json", filepath.Join(out, variant))
		if code != 0 {
			t.Fatalf("doctor %s: exit %d: %s", variant, code, docErr)
		}
		var doc struct {
			Findings []struct {
				ID string `json:"id"`
			} `json:"findings"`
			Segments []struct {
				Summary struct {
					Cycles int `json:"cycles"`
				} `json:"summary"`
			} `json:"segments"`
			Sites []struct{} `json:"sites"`
		}
		if err := json.Unmarshal([]byte(docOut), &doc); err != nil || len(doc.Segments) != 1 || len(doc.Sites) == 0 {
			t.Fatalf("doctor %s: %v, %d segments, %d sites", variant, err, len(doc.Segments), len(doc.Sites))
		}
		if variant == "problem" && !slices.ContainsFunc(doc.Findings, func(f struct {
			ID string `json:"id"`
		}) bool {
			return f.ID == "heap-large-buffer"
		}) {
			t.Errorf("doctor on the problem bundle: no heap-large-buffer in %+v", doc.Findings)
		}
		return doc.Segments[0].Summary.Cycles
	}
	if problem, fixed := cycles("problem"), cycles("fixed"); problem < 10*max(fixed, 1) {
		t.Errorf("GC cycles problem %d, fixed %d: want the problem server to collect at least 10× more", problem, fixed)
	}

	// The check commands of the problem's findings read the fixed
	// server's evidence, which the demo made: each runs as printed. (The
	// tuning check, a new demo, is left out: it would run the servers
	// again.)
	docOut, docErr, code := run(t, "", nil, "doctor", "--json", filepath.Join(out, "problem"))
	if code != 0 {
		t.Fatalf("doctor problem: exit %d: %s", code, docErr)
	}
	var doc struct {
		Actions []struct {
			ID, Command string
		} `json:"actions"`
	}
	if err := json.Unmarshal([]byte(docOut), &doc); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, a := range doc.Actions {
		args := strings.Fields(a.Command)
		switch {
		case a.Command == "" || a.ID == "tune-gc":
			continue
		case len(args) < 2 || args[0] != "gcdoctor" || strings.ContainsAny(a.Command, "'&;|"):
			t.Errorf("%s: check command %q is not one plain gcdoctor command", a.ID, a.Command)
			continue
		case args[1] == "demo":
			t.Errorf("%s: check command %q runs a new demo though this one's fixed server is there", a.ID, a.Command)
			continue
		}
		if _, stderr, code := run(t, "", nil, args[1:]...); code != 0 {
			t.Errorf("%s: $ %s: exit %d: %s", a.ID, a.Command, code, stderr)
		}
		ran++
	}
	if ran == 0 {
		t.Errorf("no check command among %+v", doc.Actions)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestBundleRoundTrip keeps a run's evidence and diagnoses it again later,
// from the directory and from a .tar.gz of it.
func TestBundleRoundTrip(t *testing.T) {
	bin := buildGCLoop(t)
	dir := filepath.Join(t.TempDir(), "ev")
	first, stderr, code := run(t, "", nil, "run", "--json", "--out", dir, "--", bin, "-rounds", "3000")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	tgz := filepath.Join(t.TempDir(), "ev.tar.gz")
	if err := bundle.WriteTarGz(dir, tgz); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir, tgz} {
		again, stderr, code := run(t, "", nil, "gctrace", "--json", path)
		if code != 0 {
			t.Fatalf("gctrace %s: exit %d: %s", path, code, stderr)
		}
		ids := func(doc string) []string {
			var d struct {
				GoVersion string `json:"go_version"`
				Findings  []struct {
					ID string `json:"id"`
				} `json:"findings"`
			}
			if i := strings.Index(doc, "{\n"); i >= 0 {
				doc = doc[i:]
			}
			if err := json.Unmarshal([]byte(doc), &d); err != nil {
				t.Fatalf("%v", err)
			}
			out := []string{d.GoVersion}
			for _, f := range d.Findings {
				out = append(out, f.ID)
			}
			return out
		}
		if a, b := ids(first), ids(again); !slices.Equal(a, b) {
			t.Errorf("%s: diagnosis differs from the run's: %v vs %v", path, b, a)
		}
	}
}

// TestHeapScenarios runs gcdoctor heap on real profiles of the seed
// scenarios: each problem's line is found with the rule that explains it,
// and the fixed program's profile raises no warning.
func TestHeapScenarios(t *testing.T) {
	const dir = "../../heapprof/testdata/profiles/"
	tests := []struct {
		profile, rule, line string
	}{
		{"bigbuf.pprof", "heap-large-buffer", "bigbuf.go:13"},
		{"copy.pprof", "heap-io-copy", "copy.go:39"},
		{"append.pprof", "heap-slice-growth", "append.go:16"},
		{"concat.pprof", "heap-string-concat", "append.go:39"},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			stdout, stderr, code := run(t, "", nil, "heap", "--json", dir+tt.profile)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var doc struct {
				Sites []struct {
					Function     string `json:"function"`
					File         string `json:"file"`
					Line         int    `json:"line"`
					AllocBytes   int64  `json:"alloc_bytes"`
					AllocObjects int64  `json:"alloc_objects"`
					EscapeReason string `json:"escape_reason"`
				} `json:"sites"`
				Findings []struct {
					ID    string `json:"id"`
					Where []struct {
						File string `json:"file"`
						Line int    `json:"line"`
					} `json:"where"`
				} `json:"findings"`
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatal(err)
			}
			top := doc.Sites[0]
			if got := filepath.Base(top.File) + ":" + strconv.Itoa(top.Line); got != tt.line || top.AllocBytes <= 0 || top.AllocObjects <= 0 || top.Function == "" {
				t.Errorf("top site %+v, want %s", top, tt.line)
			}
			if len(doc.Findings) == 0 || doc.Findings[0].ID != tt.rule ||
				filepath.Base(doc.Findings[0].Where[0].File)+":"+strconv.Itoa(doc.Findings[0].Where[0].Line) != tt.line {
				t.Errorf("findings %+v, want %s at %s first", doc.Findings, tt.rule, tt.line)
			}
			fixed := strings.Replace(tt.profile, ".pprof", "-fix.pprof", 1)
			_, _, code = run(t, "", nil, "heap", "--fail-on", "warning", dir+fixed)
			if code == 3 && tt.rule != "heap-slice-growth" {
				t.Errorf("%s: the fixed program still has a warning", fixed)
			}
		})
	}
}

// TestHeapEscape joins the compiler's escape analysis to the profile: the
// 10 MB buffer is too large for the stack.
func TestHeapEscape(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	stdout, stderr, code := run(t, "", nil, "heap", "--json", "--dir", "../../heapprof/testdata/scenarios", "--source", ".", "../../heapprof/testdata/profiles/bigbuf.pprof")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `"escape_reason": "make([]byte, 10485760) escapes to heap (too large for stack)"`) {
		t.Errorf("no escape reason for the 10 MB buffer:\n%s", stdout[:min(len(stdout), 2000)])
	}
}

func TestHeapBadInput(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"testdata/nogc.log", "nogc.log"},
		{"testdata/does-not-exist.pprof", "does-not-exist.pprof"},
		{"../../gctrace/testdata/corpus/seed002-go110-4P.log", "seed002-go110-4P.log"},
	} {
		_, stderr, code := run(t, "", nil, "heap", tt.file)
		if code != 1 || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q", tt.file, code, stderr)
		}
	}
}

// TestAttachDemoServer attaches to a real demo server under load over
// loopback and finds its 10 MB buffer from the collected profile.
func TestAttachDemoServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := make(chan net.Addr, 1)
	go demo.ServeWithPprof(ctx, demo.Problem, "127.0.0.1:0", func(a net.Addr) { addr <- a })
	base := "http://" + (<-addr).String()
	if _, err := demo.Load(ctx, demo.LoadSpec{URL: base + "/work", Requests: 20, Concurrency: 2}, nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ev")
	stdout, stderr, code := run(t, "", nil, "attach", "--seconds", "1", "--out", dir, "--json", base)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `"pattern": "large-buffer"`) || !strings.Contains(stdout, "newBuf") {
		t.Errorf("the 10 MB buffer was not found:\n%s", stdout[:min(len(stdout), 1500)])
	}
	for _, name := range []string{"allocs.pb.gz", "heap.pb.gz", "goroutine.pb.gz", "trace.out", "meta.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	// attach reports the trace it collected, under the keys trace --json
	// uses for it.
	var att, tr map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &att); err != nil {
		t.Fatal(err)
	}
	traceOut, stderr, code := run(t, "", nil, "trace", "--json", filepath.Join(dir, "trace.out"))
	if code != 0 {
		t.Fatalf("trace of the attached trace: exit %d: %s", code, stderr)
	}
	if err := json.Unmarshal([]byte(traceOut), &tr); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"trace", "gc", "mmu", "goroutine_groups"} {
		if tr[key] == nil || att[key] == nil {
			t.Errorf("key %q: in trace --json %v, in attach --json %v", key, tr[key] != nil, att[key] != nil)
		}
	}
	// The bundle can be read again later.
	again, stderr, code := run(t, "", nil, "heap", "--json", dir)
	if code != 0 || !strings.Contains(again, "newBuf") {
		t.Errorf("heap on the bundle: exit %d: %s", code, stderr)
	}
	// A server without pprof: one clear line, exit 1, no bundle left.
	_, stderr, code = run(t, "", nil, "attach", "--out", filepath.Join(t.TempDir(), "x"), base+"/nothing-here")
	if code != 1 || !strings.Contains(stderr, "404") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestWhatIf predicts from a real GOGC=100 log of a standard-library
// benchmark and checks the document's shape and the model's direction.
func TestWhatIf(t *testing.T) {
	const log = "../../pacer/testdata/real/json-marshal.gogc100.r1.log"
	stdout, stderr, code := run(t, "", nil, "whatif", "--json", "--predict-gogc", "50,100,400,off", "--predict-memlimit", "off,64MiB", "--budget", "256MiB", log)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Tuning struct {
			Predictions []struct {
				Role          string   `json:"role"`
				GOGC          int      `json:"gogc"`
				MemlimitBytes int64    `json:"memlimit_bytes"`
				GCCount       *float64 `json:"gc_count"`
				PeakHeapBytes *float64 `json:"peak_heap_bytes"`
				GCCPUFraction *float64 `json:"gc_cpu_fraction"`
			} `json:"predictions"`
			Recommendation *struct {
				GOMEMLIMIT string `json:"gomemlimit"`
			} `json:"recommendation"`
		} `json:"tuning"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	predicted := 0
	for _, p := range doc.Tuning.Predictions {
		if p.Role == "predicted" {
			predicted++
		}
	}
	if predicted != 8 || doc.Tuning.Recommendation == nil || doc.Tuning.Recommendation.GOMEMLIMIT == "" {
		t.Fatalf("unexpected document:\n%s", stdout)
	}
	byGOGC := map[int]float64{}
	for _, p := range doc.Tuning.Predictions {
		if p.Role != "predicted" {
			continue
		}
		if p.GCCount == nil || p.PeakHeapBytes == nil || p.GCCPUFraction == nil {
			t.Fatalf("missing figures in %+v", p)
		}
		if p.MemlimitBytes == 0 {
			byGOGC[p.GOGC] = *p.GCCount
		}
	}
	if !(byGOGC[50] > byGOGC[100] && byGOGC[100] > byGOGC[400] && byGOGC[-1] < byGOGC[400]) {
		t.Errorf("GC counts should fall as GOGC rises: %v", byGOGC)
	}
	for _, bad := range [][]string{{"--predict-memlimit", "1.5GB"}, {"--predict-memlimit", "1.5"}, {"--predict-gogc", "fast"}, {"--budget", "2GB"}} {
		_, stderr, code := run(t, "", nil, append(append([]string{"whatif"}, bad...), log)...)
		if code != 2 || !strings.Contains(stderr, bad[1]) {
			t.Errorf("%v: exit %d, %q", bad, code, stderr)
		}
	}
}

// TestLint runs the source checks on the example module: the JSON has the
// documented keys, SARIF is written, a broken package is reported and
// still checked, and explain knows the checks.
func TestLint(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	dir := "../../lint/testdata/mod"
	sarif := filepath.Join(t.TempDir(), "out.sarif")
	stdout, stderr, code := run(t, "", nil, "lint", "--json", "--dir", dir, "--sarif", sarif, "./...")
	if code != 1 || !strings.Contains(stderr, "do not compile") {
		t.Errorf("exit %d (want 1 for the broken package), stderr %q", code, stderr)
	}
	var doc struct {
		Diagnostics []struct {
			Rule    string `json:"rule"`
			File    string `json:"file"`
			Line    int    `json:"line"`
			Message string `json:"message"`
		} `json:"diagnostics"`
		Broken []struct {
			Package string `json:"package"`
		} `json:"broken_packages"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	for _, d := range doc.Diagnostics {
		if d.File == "" || d.Line == 0 || d.Message == "" {
			t.Errorf("incomplete diagnostic %+v", d)
		}
		rules[d.Rule] = true
	}
	for _, r := range []string{"appendprealloc", "mapprealloc", "stringconcatloop", "timeafterloop", "forcedgc"} {
		if !rules[r] {
			t.Errorf("%s not reported; got %v", r, rules)
		}
	}
	if len(doc.Broken) != 1 {
		t.Errorf("broken packages: %+v", doc.Broken)
	}
	if data, err := os.ReadFile(sarif); err != nil || !strings.Contains(string(data), `"ruleId": "appendprealloc"`) {
		t.Errorf("SARIF: %v", err)
	}
	out, _, code := run(t, "", nil, "explain", "timeafterloop")
	if code != 0 || !strings.Contains(out, "## timeafterloop") || !strings.Contains(out, "1.23") {
		t.Errorf("explain timeafterloop: exit %d\n%s", code, out)
	}
}

// traceOf builds one of exectrace's generator programs and records a trace.
func traceOf(t *testing.T, prog string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, prog)
	if out, err := exec.Command("go", "build", "-o", bin, "../../exectrace/testdata/"+prog).CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", prog, err, out)
	}
	tr := filepath.Join(dir, prog+".trace")
	cmd := exec.Command(bin, append([]string{"-trace", tr}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run %s: %v\n%s", prog, err, out)
	}
	return tr
}

// TestTrace diagnoses real traces: seed 000's goroutine explosion, its
// batched fix, and seed 004's oversized worker pool.
func TestTrace(t *testing.T) {
	if os.Getenv("GCDOCTOR_LONG") == "" {
		t.Skip("records traces of several programs: a long test; set GCDOCTOR_LONG=1 to run it")
	}
	if testing.Short() {
		t.Skip("records traces")
	}
	ids := func(args ...string) ([]string, string) {
		stdout, stderr, code := run(t, "", nil, append([]string{"trace", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var doc struct {
			GC struct {
				Cycles     int      `json:"cycles"`
				STWTotalMS *float64 `json:"stw_total_ms"`
				STWMaxMS   *float64 `json:"stw_max_ms"`
			} `json:"gc"`
			MMU []struct {
				WindowMS    float64 `json:"window_ms"`
				Utilization float64 `json:"utilization"`
			} `json:"mmu"`
			Groups []struct {
				Name  string `json:"name"`
				Count int    `json:"count"`
			} `json:"goroutine_groups"`
			Findings []struct {
				ID string `json:"id"`
			} `json:"findings"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.GC.Cycles == 0 || doc.GC.STWTotalMS == nil || doc.GC.STWMaxMS == nil || len(doc.MMU) == 0 || len(doc.Groups) == 0 {
			t.Errorf("document lacks required figures: %.600s", stdout)
		}
		var out []string
		for _, f := range doc.Findings {
			out = append(out, f.ID)
		}
		return out, stdout
	}
	got, _ := ids(traceOf(t, "concat"))
	if !slices.Contains(got, "goroutine-explosion") {
		t.Errorf("explosion: findings %v", got)
	}
	got, _ = ids(traceOf(t, "concat", "-batched"))
	if slices.Contains(got, "goroutine-explosion") {
		t.Errorf("batched: findings %v", got)
	}
	pipe := traceOf(t, "pipeline", "-workers", "128")
	got, _ = ids(pipe)
	if !slices.Contains(got, "workers-cpu-starved") {
		t.Errorf("128 workers on 2 P: findings %v", got)
	}
	out, stderr, code := run(t, "", nil, "workers", "--json", pipe)
	var rec struct {
		Workers int    `json:"workers"`
		Range   [2]int `json:"range"`
		Count   int    `json:"count"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil || rec.Workers < 2 || rec.Workers >= rec.Count || rec.Range[1] < rec.Workers {
		t.Errorf("workers: exit %d, %s %s", code, out, stderr)
	}
}

func TestTraceBadInput(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"testdata/empty.log", "empty"},
		{"testdata/nogc.log", "not"},
		{"testdata/junk.bin", "junk.bin"},
		{"testdata/missing.trace", "missing.trace"},
	} {
		_, stderr, code := run(t, "", nil, "trace", tt.file)
		if code != 1 || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q", tt.file, code, stderr)
		}
	}
}

// TestDoctor joins all the evidence of a live demo server (attached over
// loopback) and checks the summary; then a bundle with parts missing or
// corrupt, and a program run directly.
func TestDoctor(t *testing.T) {
	if testing.Short() {
		t.Skip("attaches to a server under load")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := make(chan net.Addr, 1)
	go demo.ServeWithPprof(ctx, demo.Problem, "127.0.0.1:0", func(a net.Addr) { addr <- a })
	base := "http://" + (<-addr).String()
	// The attach starts once the load is well under way, however slow the
	// machine, so that the profile has the 10 MB buffers to show.
	started := make(chan struct{})
	var once sync.Once
	go demo.Load(ctx, demo.LoadSpec{URL: base + "/work", Requests: 200, Concurrency: 2}, func(done, total int) {
		if done >= 20 {
			once.Do(func() { close(started) })
		}
	})
	select {
	case <-started:
	case <-time.After(2 * time.Minute):
		t.Fatal("the load did not get through 20 requests in 2 minutes")
	}
	dir := filepath.Join(t.TempDir(), "ev")
	stdout, stderr, code := run(t, "", nil, "doctor", "--json", "--seconds", "1", "--out", dir, base)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Actions []struct {
			ID     string `json:"id"`
			Remedy string `json:"remedy"`
			Verify string `json:"verify"`
		} `json:"actions"`
		Sites  []json.RawMessage `json:"sites"`
		Groups []json.RawMessage `json:"goroutine_groups"`
		Notes  []string          `json:"notes"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Actions) == 0 || len(doc.Actions) > 5 || len(doc.Sites) == 0 || len(doc.Groups) == 0 {
		t.Fatalf("doctor document lacks actions, sites or groups: %.800s", stdout)
	}
	var ids []string
	for _, a := range doc.Actions {
		ids = append(ids, a.ID)
		if a.Remedy == "" || a.Verify == "" {
			t.Errorf("action %s without remedy or verify", a.ID)
		}
	}
	if !slices.Contains(ids, "heap-large-buffer") {
		t.Errorf("the 10 MB buffer is not among the actions %v", ids)
	}
	// The attach bundle has no gctrace: the diagnosis says so.
	if !strings.Contains(strings.Join(doc.Notes, " "), "no gctrace.log") {
		t.Errorf("missing gctrace not named in notes %v", doc.Notes)
	}

	// A corrupt trace is left out and named; the rest is diagnosed.
	if err := os.WriteFile(filepath.Join(dir, "trace.out"), []byte("go 1.23 trace\x00\x00\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, "", nil, "doctor", dir)
	if code != 0 || !strings.Contains(out, "trace.out") {
		t.Errorf("corrupt trace: exit %d, stderr %q", code, stderr)
	}

	// A program run directly: its forced GCs come first.
	out, stderr, code = run(t, "", nil, "doctor", "--", buildGCLoop(t), "-rounds", "5000")
	if code != 0 || !strings.Contains(out, "What to do first") || !strings.Contains(out, "forces garbage collections") {
		t.Errorf("doctor -- CMD: exit %d\n%s\n%s", code, out, stderr)
	}

	// Nothing readable at all: one clear line, exit 1.
	empty := t.TempDir()
	_, stderr, code = run(t, "", nil, "doctor", empty)
	if code != 1 || !strings.Contains(stderr, "no evidence") {
		t.Errorf("empty bundle: exit %d, stderr %q", code, stderr)
	}
}

// TestWorkersVerifyUsage: workers --verify needs the program after --, and
// a way to tell it its size; the program is run only with --verify.
func TestWorkersVerifyUsage(t *testing.T) {
	const tr = "../../exectrace/testdata/small.trace"
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no program", []string{"--verify", "--size-env", "W", tr}, "the program after --"},
		{"program without --verify", []string{tr, "--", "./prog"}, "the program after --"},
		{"program before --", []string{"--verify", "--size-env", "W", tr, "./prog"}, "the program after --"},
		{"size not told", []string{"--verify", tr, "--", "./prog", "-workers", "8"}, "not told its worker count"},
		{"bad env name", []string{"--verify", "--size-env", "1W", tr, "--", "./prog"}, "not an environment variable's name"},
		{"bad count", []string{"--verify", "--count", "0", "--size-env", "W", tr, "--", "./prog"}, "--count must be between 1 and 100"},
		{"bad size", []string{"--verify", "--sizes", "0,4", "--size-env", "W", tr, "--", "./prog"}, "--sizes: 0 workers"},
		{"no such group", []string{"--group", "main.nothing", tr}, `no goroutine group "main.nothing"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := run(t, "", nil, append([]string{"workers"}, tt.args...)...)
			if code != ExitUsage || out != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, stderr, ExitUsage, tt.want)
			}
		})
	}
}
