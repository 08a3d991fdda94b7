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

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/escape"
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/heapprof"
	"github.com/gcdoctor/gcdoctor/internal/demo"
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
	var requests, concurrency int
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Diagnose and fix a built-in server that allocates 10 MB per request",
		Long: `Runs a small HTTP server whose handler allocates a fresh 10 MB buffer per
request, loads it over loopback with a bounded built-in load generator,
diagnoses its GC from its own gctrace, then runs the same server with the
fix (the buffers reused through a sync.Pool) and compares the two: requests
per second, GC cycles, GC CPU, pause p99 and peak RSS. Every number is
measured on this machine during the run.`,
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
			return e.runDemo(cmd, requests, concurrency, &rf)
		},
	}
	cmd.Flags().IntVar(&requests, "requests", demo.DefaultRequests, "requests sent to each server")
	cmd.Flags().IntVar(&concurrency, "concurrency", demo.DefaultConcurrency, "requests in flight")
	cmd.Flags().StringVar(&rf.color, "color", "auto", "colour the text report: auto, always or never (NO_COLOR is honoured)")
	cmd.Flags().IntVar(&rf.width, "width", 80, "wrap the text report at this many columns")
	return cmd
}

// demoPhaseLimit stops starting requests after this long, so that a busy
// machine cannot stretch the demo past a minute; requests per second stay
// comparable when a phase is cut short.
const demoPhaseLimit = 20 * time.Second

// demoRun is what one variant's run measured.
type demoRun struct {
	variant demo.Variant
	load    *demo.LoadResult
	diag    *diagnose.Diagnosis
	seg     *gctrace.Segment
	peakRSS int64
	win     demoWindow
}

// demoWindow holds the GC figures of the load window alone, so that the
// server's start and shutdown do not blur the comparison. Cycles and
// allocation come from the server's runtime/metrics before and after the
// load; GC CPU and pauses from the gctrace cycles that started inside the
// window.
type demoWindow struct {
	seconds   float64
	cycles    float64
	allocMBps float64
	gcCPUPct  float64 // GC CPU of the window's cycles over window × P
	p99Pause  float64 // ms, over the window's pauses; NaN when none
	pauses    int     // pauses in the window
}

func newDemoWindow(before, after *demo.GCStats, seg *gctrace.Segment) demoWindow {
	w := demoWindow{seconds: after.UptimeS - before.UptimeS, p99Pause: math.NaN(), gcCPUPct: math.NaN()}
	w.cycles = float64(after.Cycles - before.Cycles)
	if w.seconds > 0 {
		w.allocMBps = float64(after.AllocBytes-before.AllocBytes) / (1 << 20) / w.seconds
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

func (e *env) runDemo(cmd *cobra.Command, requests, concurrency int, rf *reportFlags) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("demo: cannot find the gcdoctor executable to start the server: %v", err)
	}
	out := cmd.OutOrStdout()
	color := e.useColor(rf.color, out)
	fmt.Fprintf(out, "gcdoctor demo: an HTTP handler that allocates a 10 MB buffer per request\n")
	fmt.Fprintf(out, "(%d requests, %d in flight, over loopback; every figure is measured now)\n\n", requests, concurrency)

	var runs []*demoRun
	for _, v := range []demo.Variant{demo.Problem, demo.Fixed} {
		r, err := e.demoVariant(cmd.Context(), self, v, requests, concurrency)
		if err != nil {
			return err
		}
		runs = append(runs, r)
		if v == demo.Problem {
			fmt.Fprintf(out, "Diagnosis of the problem server, from its own gctrace:\n\n")
			if err := report.Text(out, r.diag, report.TextOptions{Color: color, Width: rf.width}); err != nil {
				return err
			}
			fmt.Fprintf(out, "\nThe fix: reuse the buffers (sync.Pool of *[]byte) instead of allocating\n10 MB per request. Running the fixed server under the same load...\n\n")
		}
	}
	return demoTable(out, runs[0], runs[1])
}

// demoVariant runs one server under collect.Run, loads it, stops it and
// diagnoses it.
func (e *env) demoVariant(parent context.Context, self string, v demo.Variant, requests, concurrency int) (*demoRun, error) {
	if parent == nil {
		parent = context.Background()
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
			Path:   self,
			Args:   []string{demoServerCmd, "-variant", string(v), "-pprof"},
			Stdout: pw,
			Stderr: io.Discard,
			Grace:  10 * time.Second,
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

	before, ferr := demo.FetchGCStats(ctx, url)
	if ferr != nil {
		cancel()
		if r := <-done; r.res != nil {
			r.res.Cleanup()
		}
		return nil, fmt.Errorf("demo: %s server: %v", v, ferr)
	}
	// For the problem server, record two seconds of execution trace while
	// the load runs: the diagnosis then covers goroutines and pauses too.
	traceDone := make(chan *diagnose.TraceEvidence, 1)
	if v == demo.Problem {
		go func() { traceDone <- demoTrace(ctx, url) }()
	} else {
		traceDone <- nil
	}
	prog := newProgress(e.stderr, string(v)+" server", 0)
	load, lerr := demo.Load(ctx, demo.LoadSpec{URL: url + "/work", Requests: requests, Concurrency: concurrency, MaxDuration: demoPhaseLimit}, func(n, total int) {
		if prog.tty && time.Since(prog.start) > time.Second {
			prog.shown = true
			fmt.Fprintf(e.stderr, "\r%s server: %d/%d requests", v, n, total)
		}
	})
	prog.done()
	after, ferr := demo.FetchGCStats(ctx, url)
	tr := <-traceDone
	var heap *diagnose.HeapEvidence
	if v == demo.Problem && ferr == nil {
		heap = demoHeap(ctx, url)
	}
	cancel() // stops the server: collect sends SIGTERM, the server drains
	r := <-done
	if r.err != nil && r.res == nil {
		return nil, fmt.Errorf("demo: %s server: %v", v, r.err)
	}
	defer r.res.Cleanup()
	if lerr != nil {
		return nil, fmt.Errorf("demo: loading the %s server: %v", v, lerr)
	}
	if ferr != nil {
		return nil, fmt.Errorf("demo: %s server: %v", v, ferr)
	}
	if load.Errors > 0 && load.Errors == load.Requests {
		return nil, fmt.Errorf("demo: every request to the %s server failed: %s", v, load.FirstError)
	}
	in, err := runInput(r.res, []string{"gcdoctor", demoServerCmd, "-variant", string(v)}, &diagFlags{}, true)
	if err != nil {
		return nil, fmt.Errorf("demo: %s server: %v", v, err)
	}
	if heap != nil {
		heap.Ops = int64(load.Requests) // the profile covers the server's whole life: the load
		in.Heap = heap
	}
	in.Trace = tr
	d := diagnose.Diagnose(in)
	run := &demoRun{variant: v, load: load, diag: d, peakRSS: r.res.PeakRSS}
	if len(d.Log.Segments) > 0 {
		run.seg = d.Log.Segments[0]
	}
	run.win = newDemoWindow(before, after, run.seg)
	return run, nil
}

// demoTable prints the before/after comparison.
func demoTable(w io.Writer, before, after *demoRun) error {
	row := func(name, unit string, b, a float64, lowerBetter bool) {
		change := "n/a"
		if b != 0 && gctrace.Valid(a) && gctrace.Valid(b) {
			ratio := a / b
			switch {
			case ratio >= 1.995:
				change = fmt.Sprintf("%.1f× more", ratio)
			case ratio <= 0.5025:
				change = fmt.Sprintf("%.1f× less", 1/ratio)
			default:
				change = fmt.Sprintf("%+.0f%%", (ratio-1)*100)
			}
			if (ratio < 1) == lowerBetter && ratio != 1 {
				change += "  better"
			} else if ratio != 1 {
				change += "  worse"
			}
		}
		fmt.Fprintf(w, "  %-18s %12s %12s   %s\n", name+" ("+unit+")", demoNum(b), demoNum(a), change)
	}
	bw, aw := before.win, after.win
	fmt.Fprintf(w, "Before and after, during the load (measured on this machine just now)\n\n")
	fmt.Fprintf(w, "  %-18s %12s %12s   %s\n", "", "problem", "fixed", "change")
	row("requests", "/s", before.load.RequestsPerSec, after.load.RequestsPerSec, false)
	row("latency p99", "ms", ms(before.load.P99), ms(after.load.P99), true)
	row("GC cycles", "count", bw.cycles, aw.cycles, true)
	row("GC CPU", "%", bw.gcCPUPct, aw.gcCPUPct, true)
	row("allocation", "MB/s", bw.allocMBps, aw.allocMBps, true)
	if n := min(bw.pauses, aw.pauses); n < 20 {
		// A 99th percentile of a handful of pauses is their maximum:
		// no basis for calling one side better.
		fmt.Fprintf(w, "  %-18s %12s %12s   ~ (only %d pauses)\n", "STW pause p99 (ms)", demoNum(bw.p99Pause), demoNum(aw.p99Pause), n)
	} else {
		row("STW pause p99", "ms", bw.p99Pause, aw.p99Pause, true)
	}
	row("peak RSS", "MiB", float64(before.peakRSS>>20), float64(after.peakRSS>>20), true)
	if before.load.Errors+after.load.Errors > 0 {
		fmt.Fprintf(w, "\n  failed requests: %d (problem), %d (fixed); first: %s\n", before.load.Errors, after.load.Errors, firstNonEmpty(before.load.FirstError, after.load.FirstError))
	}
	list := func(d *diagnose.Diagnosis) string {
		var s []string
		for _, f := range d.Findings {
			s = append(s, fmt.Sprintf("%s (%s)", f.ID, f.Severity))
		}
		return listOrNone(s)
	}
	fmt.Fprintf(w, "\n")
	wrapTo(w, "  findings before: ", list(before.diag), 80)
	wrapTo(w, "  findings after:  ", list(after.diag), 80)
	fmt.Fprintf(w, "\nGC cycles and allocation come from the servers' runtime/metrics, GC CPU and\npauses from their gctrace, over the load only. With one run each these are\nindications, not statistics: rerun to see the spread.\n")
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

// demoHeap fetches the server's allocation profile and ranks its sites,
// charged to the demo's own code. When the demo's source is on this machine
// (go run from a clone), the compiler's escape analysis explains each site.
// Any failure only leaves the heap evidence out.
func demoHeap(ctx context.Context, base string) *diagnose.HeapEvidence {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/debug/pprof/allocs", nil)
	if err != nil {
		return nil
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	p, err := heapprof.Read(resp.Body, "allocs profile of the problem server")
	if err != nil {
		return nil
	}
	h := &diagnose.HeapEvidence{Name: "allocs profile", Profile: p, Source: newSourceReader().line}
	h.Top = p.Top(heapprof.SiteOptions{N: 5, User: heapprof.UserModules(demoPackage)})
	if len(h.Top.Sites) > 0 {
		if dir := filepath.Dir(h.Top.Sites[0].File); fileExists(filepath.Join(dir, "server.go")) {
			if rep, err := escape.Analyze(ctx, dir, []string{"."}); err == nil {
				h.Escape = rep
			}
		}
	}
	return h
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

// demoTrace records two seconds of the server's execution trace and
// analyses it; any failure only leaves the trace out.
func demoTrace(ctx context.Context, base string) *diagnose.TraceEvidence {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/debug/pprof/trace?seconds=2", nil)
	if err != nil {
		return nil
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	res, err := exectrace.Analyze(resp.Body, exectrace.Options{})
	if err != nil || res == nil {
		return nil
	}
	return &diagnose.TraceEvidence{Name: "2 s trace of the problem server", Result: res}
}
