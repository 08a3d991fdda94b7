package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/demo"
	"github.com/gcdoctor/gcdoctor/pacer"
	"github.com/gcdoctor/gcdoctor/report"
)

// demoServerCmd is the hidden child mode: gcdoctor demo runs itself with it,
// so the server is a process of its own whose gctrace and memory belong to
// the workload alone.
const demoServerCmd = "demo-server"

func newDemoServerCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:                demoServerCmd,
		Short:              "Run the demo server (used by gcdoctor demo)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := demo.ServeMain(args, cmd.OutOrStdout()); code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}

func newDemoCmd(e *env) *cobra.Command {
	var rf reportFlags
	var requests, concurrency, rounds int
	var out string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Diagnose and fix a built-in server that allocates 10 MB per request",
		Long: `Runs a small HTTP server whose handler allocates a fresh 10 MB buffer per
request and loads it over loopback with a bounded built-in load generator.
It collects what gcdoctor doctor reads (the server's gctrace, RSS, an
allocation profile and an execution trace, plus the source checks and
escape analysis of the demo's code when its source is on this machine)
into a bundle, prints the whole diagnosis and writes it as report.html.
Then it runs the same server with the fix (the buffers reused through a
sync.Pool) under the same load and compares the two over several rounds,
with benchstat's statistics: requests per second, latency, GC cycles, GC
CPU and allocation. Every number is measured on this machine during the
run; gcdoctor doctor DIR/problem repeats the diagnosis from the bundle.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if requests < 1 || requests > demo.MaxRequests {
				return &usageError{fmt.Errorf("--requests must be between 1 and %d", demo.MaxRequests)}
			}
			if concurrency < 1 || concurrency > 256 {
				return &usageError{errors.New("--concurrency must be between 1 and 256")}
			}
			if rounds < 1 || rounds > 50 || rounds > requests {
				return &usageError{errors.New("--rounds must be between 1 and 50, and at most --requests")}
			}
			return e.runDemo(cmd, requests, concurrency, rounds, out, &rf)
		},
	}
	cmd.Flags().IntVar(&requests, "requests", demo.DefaultRequests, "requests sent to each server, split over the rounds")
	cmd.Flags().IntVar(&concurrency, "concurrency", demo.DefaultConcurrency, "requests in flight")
	cmd.Flags().IntVar(&rounds, "rounds", demoRounds, "rounds of load per server: the samples of the before/after statistics")
	cmd.Flags().StringVar(&out, "out", "gcdoctor-demo", "directory for the evidence bundles and report.html")
	cmd.Flags().StringVar(&rf.color, "color", "auto", "colour the text report: auto, always or never (NO_COLOR is honoured)")
	cmd.Flags().IntVar(&rf.width, "width", 80, "wrap the text report at this many columns")
	return cmd
}

// demoRounds is the default number of load rounds per server: benchmath
// needs six samples for a 95% confidence interval of a median.
const demoRounds = 6

// demoPhaseLimit stops starting requests after this long, so that a busy
// machine cannot stretch the demo past a minute; requests per second stay
// comparable when a phase is cut short.
const demoPhaseLimit = 20 * time.Second

// demoTraceSeconds is the length of the problem server's execution trace,
// recorded during a warm-up round before the measured ones so that tracing
// does not weigh on their figures.
const demoTraceSeconds = 2

// demoRun is what one variant's run measured.
type demoRun struct {
	variant  demo.Variant
	rounds   []demoRound
	requests int // successful and failed, over the measured rounds
	errors   int
	firstErr string
	diag     *diagnose.Diagnosis
	peakRSS  int64
	bundle   string
}

// demoRound is one round of load and the server's runtime/metrics around
// it; win holds its GC figures once the gctrace is read.
type demoRound struct {
	load          *demo.LoadResult
	before, after *demo.GCStats
	win           demoWindow
}

// demoWindow holds the GC figures of one load window alone, so that the
// server's start and shutdown do not blur the comparison. Cycles and
// allocation come from the server's runtime/metrics before and after the
// load; GC CPU and pauses from the gctrace cycles that started inside the
// window.
type demoWindow struct {
	seconds     float64
	cycles      float64
	allocMBps   float64
	allocPerReq float64 // MiB per request
	gcCPUPct    float64 // GC CPU of the window's cycles over window × P
	p99Pause    float64 // ms, over the window's pauses; NaN when none
	pauses      int     // pauses in the window
}

func newDemoWindow(before, after *demo.GCStats, seg *gctrace.Segment, requests int) demoWindow {
	w := demoWindow{seconds: after.UptimeS - before.UptimeS, p99Pause: math.NaN(), gcCPUPct: math.NaN(), allocPerReq: math.NaN()}
	w.cycles = float64(after.Cycles - before.Cycles)
	alloc := float64(after.AllocBytes-before.AllocBytes) / (1 << 20)
	if w.seconds > 0 {
		w.allocMBps = alloc / w.seconds
	}
	if requests > 0 {
		w.allocPerReq = alloc / float64(requests)
	}
	if seg == nil || seg.CyclesTruncated || w.seconds <= 0 {
		return w
	}
	var cpu float64
	var pauses []float64
	for i := range seg.Cycles {
		c := &seg.Cycles[i]
		if !c.HasAt || c.At < before.UptimeS || c.At > after.UptimeS {
			continue
		}
		cpu += c.GCCPU()
		p, n := c.Pauses()
		pauses = append(pauses, p[:n]...)
	}
	w.gcCPUPct = cpu / (w.seconds * 1000 * float64(max(after.GOMAXPROCS, 1))) * 100
	w.pauses = len(pauses)
	if len(pauses) > 0 {
		slices.Sort(pauses)
		w.p99Pause = pauses[max(int(math.Ceil(0.99*float64(len(pauses))))-1, 0)]
	}
	return w
}

func (e *env) runDemo(cmd *cobra.Command, requests, concurrency, rounds int, outDir string, rf *reportFlags) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("demo: cannot find the gcdoctor executable to start the server: %v", err)
	}
	dirs := map[demo.Variant]string{demo.Problem: filepath.Join(outDir, "problem"), demo.Fixed: filepath.Join(outDir, "fixed")}
	for _, d := range dirs {
		if err := clearDemoBundle(d); err != nil {
			return err
		}
	}
	out := cmd.OutOrStdout()
	color := e.useColor(rf.color, out)
	fmt.Fprintf(out, "gcdoctor demo: an HTTP handler that allocates a 10 MB buffer per request\n")
	fmt.Fprintf(out, "(%d requests in %d rounds, %d in flight, over loopback; every figure is\nmeasured now)\n\n", requests, rounds, concurrency)

	var runs []*demoRun
	for _, v := range []demo.Variant{demo.Problem, demo.Fixed} {
		r, err := e.demoVariant(cmd.Context(), self, v, requests, concurrency, rounds, dirs[v])
		if err != nil {
			return err
		}
		runs = append(runs, r)
		if v == demo.Problem {
			fmt.Fprintf(out, "Diagnosis of the problem server, from all the evidence collected:\n\n")
			if err := report.Text(out, r.diag, report.TextOptions{Color: color, Width: rf.width}); err != nil {
				return err
			}
			if err := writeHTML(filepath.Join(outDir, "report.html"), r.diag); err != nil {
				return err
			}
			fmt.Fprintf(out, "\nThe whole diagnosis, with charts: %s\n", filepath.Join(outDir, "report.html"))
			fmt.Fprintf(out, "\nThe fix: reuse the buffers (sync.Pool of *[]byte) instead of allocating\n10 MB per request. Running the fixed server under the same load...\n\n")
		}
	}
	if err := demoTable(out, runs[0], runs[1], rounds, color, rf.width); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nEvidence: %s and %s\n", runs[0].bundle, runs[1].bundle)
	wrapTo(out, "  ", fmt.Sprintf("gcdoctor doctor %s repeats the diagnosis from the bundle; gcdoctor diff %s %s compares the two runs.", runs[0].bundle, runs[0].bundle, runs[1].bundle), rf.width)
	return nil
}

// writeHTML writes the diagnosis as the self-contained HTML report.
func writeHTML(path string, d *diagnose.Diagnosis) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("demo: %v", err)
	}
	if err := report.HTML(f, d, report.HTMLOptions{ToolVersion: version()}); err != nil {
		f.Close()
		return fmt.Errorf("demo: writing %s: %v", path, err)
	}
	return f.Close()
}

// clearDemoBundle makes way for a new bundle at dir: a bundle of an earlier
// demo is removed, anything else is left alone and refused.
func clearDemoBundle(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("demo: %v", err)
	}
	if len(entries) > 0 && !fileExists(filepath.Join(dir, bundle.MetaFile)) {
		return fmt.Errorf("demo: %s is not empty and not a gcdoctor bundle; choose another --out", dir)
	}
	return os.RemoveAll(dir)
}

// demoVariant runs one server under collect.Run into a bundle at dir,
// warms it up (recording the problem server's trace meanwhile), loads it
// round by round, fetches its allocation profile, stops it and diagnoses
// the bundle as gcdoctor doctor would.
func (e *env) demoVariant(parent context.Context, self string, v demo.Variant, requests, concurrency, rounds int, dir string) (*demoRun, error) {
	if parent == nil {
		parent = context.Background()
	}
	bw, err := bundle.Create(dir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	pr, pw := io.Pipe()
	type result struct {
		res *collect.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := collect.Run(ctx, collect.Spec{
			Path:        self,
			Args:        []string{demoServerCmd, "-variant", string(v), "-pprof"},
			Stdout:      pw,
			Stderr:      io.Discard,
			Out:         bw,
			Grace:       10 * time.Second,
			ToolVersion: version(),
		})
		pw.Close()
		done <- result{res, err}
	}()

	// The server prints "listening on URL" once it accepts connections.
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				select {
				case addr <- u:
				default:
				}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	var url string
	select {
	case url = <-addr:
	case r := <-done:
		if r.res != nil {
			r.res.Cleanup()
		}
		if r.err != nil {
			return nil, fmt.Errorf("demo: starting the %s server: %v", v, r.err)
		}
		return nil, fmt.Errorf("demo: the %s server exited (status %d) before listening", v, r.res.ExitCode)
	case <-time.After(30 * time.Second):
		cancel()
		<-done
		return nil, fmt.Errorf("demo: the %s server did not start listening within 30 s", v)
	}
	stop := func() *collect.Result {
		cancel() // collect sends SIGTERM, the server drains
		r := <-done
		return r.res
	}
	fail := func(err error) (*demoRun, error) {
		if res := stop(); res != nil {
			res.Cleanup()
		}
		return nil, fmt.Errorf("demo: %s server: %v", v, err)
	}

	// Warm-up: the problem server's trace is recorded now, so that tracing
	// does not weigh on the measured rounds.
	warm := demo.LoadSpec{URL: url + "/work", Requests: demo.MaxRequests, Concurrency: concurrency, MaxDuration: time.Second / 2}
	traceDone := make(chan error, 1)
	if v == demo.Problem {
		warm.MaxDuration = demoTraceSeconds*time.Second + 250*time.Millisecond
		go func() {
			traceDone <- fetchTo(ctx, fmt.Sprintf("%s/debug/pprof/trace?seconds=%d", url, demoTraceSeconds), filepath.Join(dir, bundle.TraceFile))
		}()
	} else {
		traceDone <- nil
	}
	prog := newProgress(e.stderr, string(v)+" server", 0)
	show := func(what string) {
		if prog.tty && time.Since(prog.start) > time.Second {
			prog.shown = true
			fmt.Fprintf(e.stderr, "\r\x1b[K%s server: %s", v, what)
		}
	}
	show("warming up")
	if _, err := demo.Load(ctx, warm, nil); err != nil {
		prog.done()
		return fail(err)
	}
	<-traceDone // a trace that failed is only missing evidence

	run := &demoRun{variant: v, bundle: dir}
	sent := 0
	for i := range rounds {
		n := requests/rounds + btoi(i < requests%rounds)
		before, err := demo.FetchGCStats(ctx, url)
		if err != nil {
			prog.done()
			return fail(err)
		}
		load, err := demo.Load(ctx, demo.LoadSpec{URL: url + "/work", Requests: n, Concurrency: concurrency, MaxDuration: demoPhaseLimit / time.Duration(rounds)}, func(done, total int) {
			show(fmt.Sprintf("round %d/%d, %d/%d requests", i+1, rounds, sent+done, requests))
		})
		if err != nil {
			prog.done()
			return fail(fmt.Errorf("loading: %v", err))
		}
		after, err := demo.FetchGCStats(ctx, url)
		if err != nil {
			prog.done()
			return fail(err)
		}
		sent += load.Requests
		run.requests += load.Requests
		run.errors += load.Errors
		if run.firstErr == "" {
			run.firstErr = load.FirstError
		}
		run.rounds = append(run.rounds, demoRound{load: load, before: before, after: after})
	}
	show("fetching the allocation profile")
	perr := fetchTo(ctx, url+"/debug/pprof/allocs", filepath.Join(dir, bundle.AllocsFile))
	prog.done()
	res := stop()
	if res == nil {
		return nil, fmt.Errorf("demo: %s server: no result", v)
	}
	defer res.Cleanup()
	if run.errors > 0 && run.errors == run.requests {
		return nil, fmt.Errorf("demo: every request to the %s server failed: %s", v, run.firstErr)
	}
	if perr != nil {
		os.Remove(filepath.Join(dir, bundle.AllocsFile))
	}
	run.peakRSS = res.PeakRSS

	// The diagnosis, as gcdoctor doctor makes it from the bundle; the
	// demo's own package is the source to check when it is on this machine.
	var source []string
	srcDir := "."
	if d := demo.SourceDir(); d != "" {
		source, srcDir = []string{"."}, d
	}
	if v == demo.Fixed {
		source = nil // its source is the same package: checked once
	}
	set, err := evidence.LoadBundle(parent, dir, evidence.Options{KeepCycles: true, Source: source, Dir: srcDir, Lint: true,
		Top: 5, User: []string{demoPackage}})
	if err != nil {
		return nil, fmt.Errorf("demo: %s server: %v", v, err)
	}
	in := set.Input
	if in.Run != nil {
		in.Run.Command = []string{"gcdoctor", demoServerCmd, "-variant", string(v)}
	}
	if in.Heap != nil {
		in.Heap.Ops = int64(sent + run.rounds[0].load.Requests) // the profile covers the warm-up too
	}
	in.Tune = &diagnose.TuneRequest{Objective: pacer.CPU}
	d := diagnose.Diagnose(in)
	d.Notes = append(d.Notes, set.Notes...)
	d.FirstActions = true
	run.diag = d
	var seg *gctrace.Segment
	if len(d.Log.Segments) > 0 {
		seg = d.Log.Segments[0]
	}
	for i := range run.rounds {
		r := &run.rounds[i]
		r.win = newDemoWindow(r.before, r.after, seg, r.load.Requests)
	}
	return run, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fetchTo saves what a GET of url returns to file.
func fetchTo(ctx context.Context, url, file string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		os.Remove(file)
		return err
	}
	return f.Close()
}

// demoTable prints the before/after comparison: one sample per round and
// metric, with benchstat's statistics (median, 95% confidence interval,
// Mann-Whitney U test).
func demoTable(w io.Writer, before, after *demoRun, rounds int, color bool, width int) error {
	sample := func(r *demoRun, f func(*demoRound) float64) compare.Sample {
		var s compare.Sample
		for i := range r.rounds {
			if v := f(&r.rounds[i]); gctrace.Valid(v) {
				s = append(s, v)
			}
		}
		return s
	}
	tab := &compare.Table{
		Title:   fmt.Sprintf("problem vs fixed server, %d rounds each, during the load only", rounds),
		Columns: []string{"problem", "fixed"},
		Kind:    "diff",
	}
	for _, m := range []struct {
		metric compare.Metric
		f      func(*demoRound) float64
	}{
		{compare.Metric{Name: "requests", Unit: "req/s", Better: 1}, func(r *demoRound) float64 { return r.load.RequestsPerSec }},
		{compare.Metric{Name: "latency p50", Unit: "ms", Better: -1}, func(r *demoRound) float64 { return ms(r.load.P50) }},
		{compare.Metric{Name: "latency p99", Unit: "ms", Better: -1}, func(r *demoRound) float64 { return ms(r.load.P99) }},
		{compare.Metric{Name: "GC cycles", Unit: "cycles", Better: -1}, func(r *demoRound) float64 { return r.win.cycles }},
		{compare.Metric{Name: "GC CPU", Unit: "%", Better: -1}, func(r *demoRound) float64 { return r.win.gcCPUPct }},
		{compare.Metric{Name: "allocated per request", Unit: "MiB", Better: -1}, func(r *demoRound) float64 { return r.win.allocPerReq }},
	} {
		tab.Rows = append(tab.Rows, compare.NewRow("", m.metric, []compare.Sample{sample(before, m.f), sample(after, m.f)}))
	}
	tab.Notes = append(tab.Notes, fmt.Sprintf("Peak RSS: %d MiB (problem), %d MiB (fixed), over each server's whole life.", before.peakRSS>>20, after.peakRSS>>20))
	if before.errors+after.errors > 0 {
		tab.Notes = append(tab.Notes, fmt.Sprintf("Failed requests: %d (problem), %d (fixed); first: %s", before.errors, after.errors, firstNonEmpty(before.firstErr, after.firstErr)))
	}
	if err := report.CompareText(w, tab, report.TextOptions{Color: color, Width: width}); err != nil {
		return err
	}
	list := func(d *diagnose.Diagnosis) string {
		var s []string
		for _, f := range d.Findings {
			s = append(s, fmt.Sprintf("%s (%s)", f.ID, f.Severity))
		}
		return listOrNone(s)
	}
	fmt.Fprintf(w, "\n")
	wrapTo(w, "  findings before: ", list(before.diag), width)
	wrapTo(w, "  findings after:  ", list(after.diag), width)
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func demoNum(v float64) string {
	if !gctrace.Valid(v) {
		return "n/a"
	}
	switch {
	case v == float64(int64(v)):
		return fmt.Sprintf("%d", int64(v))
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// demoPackage is the import path of the demo workload, whose lines the
// profile's allocations are charged to.
const demoPackage = "github.com/gcdoctor/gcdoctor/internal/demo"

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// wrapTo prints text after head, wrapped at width with continuation lines
// aligned under the text.
func wrapTo(w io.Writer, head, text string, width int) {
	line, indent := head, strings.Repeat(" ", len(head))
	for i, word := range strings.Fields(text) {
		if i > 0 && len(line)+1+len(word) > width {
			fmt.Fprintln(w, line)
			line = indent + word
			continue
		}
		if i > 0 {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}
