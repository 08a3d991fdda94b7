// Package tour runs the show of "gcdoctor demo": each variant of the demo
// server as a process of its own under collect.Run, warmed up, loaded round
// by round with the runtime's GC counters read around each round, its
// allocation profile and an execution trace fetched into a bundle, and the bundle diagnosed as gcdoctor doctor
// would. Show runs both variants and tells the story, formatted by report;
// the command only wires its flags to it.
package tour

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

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/demo"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// DefaultRounds is the default number of load rounds per server: benchmath
// needs six samples for a 95% confidence interval of a median.
const DefaultRounds = 6

// phaseLimit stops starting requests after this long, so that a busy
// machine cannot stretch the demo past a minute; requests per second stay
// comparable when a phase is cut short.
const phaseLimit = 20 * time.Second

// traceSeconds is the length of each server's execution trace,
// recorded during a warm-up round before the measured ones so that tracing
// does not weigh on their figures.
const traceSeconds = 2

// startTimeout bounds how long a server may take to listen.
const startTimeout = 30 * time.Second

// demoPackage is the import path of the demo workload, whose lines the
// profile's allocations are charged to.
const demoPackage = "github.com/gcdoctor/gcdoctor/internal/demo"

// Spec says how to run one variant.
type Spec struct {
	Variant demo.Variant
	// Server is the command that starts the server, to which -variant V
	// -pprof is added (gcdoctor runs itself in a hidden mode); Command is
	// how the diagnosis names it.
	Server, Command []string
	// Requests are split over Rounds; Concurrency requests are in flight.
	Requests, Concurrency, Rounds int
	// Dir is the bundle directory to create.
	Dir string
	// ToolVersion is recorded in the bundle.
	ToolVersion string
	// Progress, when set, is told what is being done.
	Progress func(what string)
	// Recheck is how the diagnosis's check commands collect evidence
	// again.
	Recheck diagnose.Recheck
}

// Run is what one variant's run measured.
type Run struct {
	Variant  demo.Variant
	Rounds   []Round
	Requests int // successful and failed, over the measured rounds
	Errors   int
	FirstErr string
	// Diagnosis is the bundle's, as gcdoctor doctor makes it.
	Diagnosis *diagnose.Diagnosis
	PeakRSS   int64
	Bundle    string
}

// Round is one round of load and the server's runtime/metrics around it;
// Window holds its GC figures once the gctrace is read.
type Round struct {
	Load          *demo.LoadResult
	Before, After *demo.GCStats
	Window        Window
}

// Window holds the GC figures of one load window alone, so that the
// server's start and shutdown do not blur the comparison. Cycles and
// allocation come from the server's runtime/metrics before and after the
// load; GC CPU and pauses from the gctrace cycles that started inside the
// window.
type Window struct {
	Seconds     float64
	Cycles      float64
	AllocMBps   float64
	AllocPerReq float64 // MiB per request
	GCCPUPct    float64 // GC CPU of the window's cycles over window × P
	P99Pause    float64 // ms, over the window's pauses; NaN when none
	Pauses      int     // pauses in the window
}

func newWindow(before, after *demo.GCStats, seg *gctrace.Segment, requests int) Window {
	w := Window{Seconds: after.UptimeS - before.UptimeS, P99Pause: math.NaN(), GCCPUPct: math.NaN(), AllocPerReq: math.NaN()}
	w.Cycles = float64(after.Cycles - before.Cycles)
	alloc := float64(after.AllocBytes-before.AllocBytes) / (1 << 20)
	if w.Seconds > 0 {
		w.AllocMBps = alloc / w.Seconds
	}
	if requests > 0 {
		w.AllocPerReq = alloc / float64(requests)
	}
	if seg == nil || seg.CyclesTruncated || w.Seconds <= 0 {
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
	w.GCCPUPct = cpu / (w.Seconds * 1000 * float64(max(after.GOMAXPROCS, 1))) * 100
	w.Pauses = len(pauses)
	if len(pauses) > 0 {
		slices.Sort(pauses)
		w.P99Pause = pauses[max(int(math.Ceil(0.99*float64(len(pauses))))-1, 0)]
	}
	return w
}

// server is a running demo server.
type server struct {
	url    string
	cancel context.CancelFunc
	done   chan serverResult
}

type serverResult struct {
	res *collect.Result
	err error
}

// stop ends the server (collect sends SIGTERM, the server drains) and
// returns its run.
func (s *server) stop() *collect.Result {
	s.cancel()
	return (<-s.done).res
}

// start runs the server into the bundle and waits until it listens.
func start(ctx context.Context, s *Spec, bw *bundle.Writer) (*server, error) {
	ctx, cancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	srv := &server{cancel: cancel, done: make(chan serverResult, 1)}
	args := append(slices.Clone(s.Server[1:]), "-variant", string(s.Variant), "-pprof")
	go func() {
		res, err := collect.Run(ctx, collect.Spec{Path: s.Server[0], Args: args, Stdout: pw, Stderr: io.Discard,
			Out: bw, Grace: 10 * time.Second, ToolVersion: s.ToolVersion})
		pw.Close()
		srv.done <- serverResult{res, err}
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
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case srv.url = <-addr:
		return srv, nil
	case r := <-srv.done:
		cancel()
		if r.res != nil {
			r.res.Cleanup()
		}
		if r.err != nil {
			return nil, fmt.Errorf("starting the %s server: %v", s.Variant, r.err)
		}
		return nil, fmt.Errorf("the %s server exited (status %d) before listening", s.Variant, r.res.ExitCode)
	case <-timer.C:
		srv.stop()
		return nil, fmt.Errorf("the %s server did not start listening within %v", s.Variant, startTimeout)
	}
}

// RunVariant runs one server into a bundle at Spec.Dir, warms it up
// (recording its trace meanwhile), loads it round by
// round, fetches its allocation profile, stops it and diagnoses the bundle
// as gcdoctor doctor would.
func RunVariant(parent context.Context, s Spec) (*Run, error) {
	if s.Progress == nil {
		s.Progress = func(string) {}
	}
	bw, err := bundle.Create(s.Dir)
	if err != nil {
		return nil, err
	}
	srv, err := start(parent, &s, bw)
	if err != nil {
		return nil, err
	}
	run, err := load(parent, &s, srv)
	s.Progress("fetching the allocation profile")
	var perr error
	if err == nil {
		perr = fetchTo(parent, srv.url+"/debug/pprof/allocs", filepath.Join(s.Dir, bundle.AllocsFile))
	}
	res := srv.stop()
	if res != nil {
		defer res.Cleanup()
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s server: %v", s.Variant, err)
	case res == nil:
		return nil, fmt.Errorf("%s server: no result", s.Variant)
	case run.Errors > 0 && run.Errors == run.Requests:
		return nil, fmt.Errorf("every request to the %s server failed: %s", s.Variant, run.FirstErr)
	}
	if perr != nil {
		os.Remove(filepath.Join(s.Dir, bundle.AllocsFile))
	}
	run.PeakRSS = res.PeakRSS
	if err := diagnoseRun(parent, &s, run); err != nil {
		return nil, fmt.Errorf("%s server: %v", s.Variant, err)
	}
	return run, nil
}

// load warms the server up and runs the measured rounds.
func load(ctx context.Context, s *Spec, srv *server) (*Run, error) {
	// Warm-up: the server's trace is recorded now, so that tracing does
	// not weigh on the measured rounds. The fixed server's trace is what
	// the problem's trace findings are checked against.
	warm := demo.LoadSpec{URL: srv.url + "/work", Requests: demo.MaxRequests, Concurrency: s.Concurrency,
		MaxDuration: traceSeconds*time.Second + 250*time.Millisecond}
	traceDone := make(chan error, 1)
	go func() {
		traceDone <- fetchTo(ctx, fmt.Sprintf("%s/debug/pprof/trace?seconds=%d", srv.url, traceSeconds), filepath.Join(s.Dir, bundle.TraceFile))
	}()
	s.Progress("warming up")
	if _, err := demo.Load(ctx, warm, nil); err != nil {
		return nil, err
	}
	<-traceDone // a trace that failed is only missing evidence
	run := &Run{Variant: s.Variant, Bundle: s.Dir}
	sent := 0
	for i := range s.Rounds {
		n := s.Requests / s.Rounds
		if i < s.Requests%s.Rounds {
			n++
		}
		before, err := demo.FetchGCStats(ctx, srv.url)
		if err != nil {
			return nil, err
		}
		ls, err := demo.Load(ctx, demo.LoadSpec{URL: srv.url + "/work", Requests: n, Concurrency: s.Concurrency, MaxDuration: phaseLimit / time.Duration(s.Rounds)}, func(done, total int) {
			s.Progress(fmt.Sprintf("round %d/%d, %d/%d requests", i+1, s.Rounds, sent+done, s.Requests))
		})
		if err != nil {
			return nil, fmt.Errorf("loading: %v", err)
		}
		after, err := demo.FetchGCStats(ctx, srv.url)
		if err != nil {
			return nil, err
		}
		sent += ls.Requests
		run.Requests += ls.Requests
		run.Errors += ls.Errors
		if run.FirstErr == "" {
			run.FirstErr = ls.FirstError
		}
		run.Rounds = append(run.Rounds, Round{Load: ls, Before: before, After: after})
	}
	return run, nil
}

// diagnoseRun diagnoses the bundle as gcdoctor doctor does; the demo's own
// package is the source to check when it is on this machine.
func diagnoseRun(ctx context.Context, s *Spec, run *Run) error {
	var source []string
	srcDir := "."
	if d := demo.SourceDir(); d != "" && s.Variant == demo.Problem {
		// The fixed server's source is the same package: checked once.
		source, srcDir = []string{"."}, d
	}
	set, err := evidence.LoadBundle(ctx, s.Dir, evidence.Options{KeepCycles: true, Source: source, Dir: srcDir, Lint: true,
		Top: 5, User: []string{demoPackage}})
	if err != nil {
		return err
	}
	in := set.Input
	if in.Run != nil {
		in.Run.Command = append(slices.Clone(s.Command), "-variant", string(s.Variant))
	}
	if in.Heap != nil && len(run.Rounds) > 0 {
		in.Heap.Ops = int64(run.Requests + run.Rounds[0].Load.Requests) // the profile covers the warm-up too
	}
	in.Tune = &diagnose.TuneRequest{Objective: pacer.CPU}
	in.Recheck = s.Recheck
	d := diagnose.Diagnose(in)
	d.Caveats = append(d.Caveats, set.Notes...)
	d.FirstActions = true
	run.Diagnosis = d
	var seg *gctrace.Segment
	if len(d.Log.Segments) > 0 {
		seg = d.Log.Segments[0]
	}
	for i := range run.Rounds {
		r := &run.Rounds[i]
		r.Window = newWindow(r.Before, r.After, seg, r.Load.Requests)
	}
	return nil
}

// maxFetch bounds what fetchTo saves: a demo server's profile or trace of a
// few seconds is a few MiB.
const maxFetch = 256 << 20

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
	n, err := io.Copy(f, io.LimitReader(resp.Body, maxFetch+1))
	if err == nil && n > maxFetch {
		err = fmt.Errorf("GET %s: larger than %d MiB", url, maxFetch>>20)
	}
	if err != nil {
		f.Close()
		os.Remove(file)
		return err
	}
	return f.Close()
}

// Table is the before/after comparison of two runs: one sample per round
// and metric, for benchstat's statistics.
func Table(before, after *Run) *compare.Table {
	sample := func(r *Run, f func(*Round) float64) compare.Sample {
		var s compare.Sample
		for i := range r.Rounds {
			if v := f(&r.Rounds[i]); gctrace.Valid(v) {
				s = append(s, v)
			}
		}
		return s
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	tab := &compare.Table{
		Title:   fmt.Sprintf("%s vs %s server, %d rounds each, during the load only", before.Variant, after.Variant, len(before.Rounds)),
		Columns: []string{string(before.Variant), string(after.Variant)},
		Kind:    "diff",
	}
	for _, m := range []struct {
		metric compare.Metric
		f      func(*Round) float64
	}{
		{compare.Metric{Name: "requests", Unit: "req/s", Better: 1}, func(r *Round) float64 { return r.Load.RequestsPerSec }},
		{compare.Metric{Name: "latency p50", Unit: "ms", Better: -1}, func(r *Round) float64 { return ms(r.Load.P50) }},
		{compare.Metric{Name: "latency p99", Unit: "ms", Better: -1}, func(r *Round) float64 { return ms(r.Load.P99) }},
		{compare.Metric{Name: "GC cycles", Unit: "cycles", Better: -1}, func(r *Round) float64 { return r.Window.Cycles }},
		{compare.Metric{Name: "GC CPU", Unit: "%", Better: -1}, func(r *Round) float64 { return r.Window.GCCPUPct }},
		{compare.Metric{Name: "allocated per request", Unit: "MiB", Better: -1}, func(r *Round) float64 { return r.Window.AllocPerReq }},
	} {
		tab.Rows = append(tab.Rows, compare.NewRow("", m.metric, []compare.Sample{sample(before, m.f), sample(after, m.f)}))
	}
	tab.Caveats = append(tab.Caveats, fmt.Sprintf("Peak RSS: %d MiB (%s), %d MiB (%s), over each server's whole life.", before.PeakRSS>>20, before.Variant, after.PeakRSS>>20, after.Variant))
	if before.Errors+after.Errors > 0 {
		first := before.FirstErr
		if first == "" {
			first = after.FirstErr
		}
		tab.Caveats = append(tab.Caveats, fmt.Sprintf("Failed requests: %d (%s), %d (%s); first: %s", before.Errors, before.Variant, after.Errors, after.Variant, first))
	}
	return tab
}

// ClearBundle makes way for a new bundle at dir. Only a bundle an earlier
// demo wrote is removed, and of it only the files a bundle holds; anything
// else is left alone and refused.
func ClearBundle(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(entries) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	refuse := fmt.Errorf("%s is not empty and not a bundle of gcdoctor demo; choose another --out", dir)
	b, err := bundle.Open(dir)
	if err != nil {
		return refuse
	}
	m := b.Meta()
	b.Close()
	if m == nil || !slices.Contains(m.Command, "demo-server") {
		return refuse
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !slices.Contains(bundle.KnownFiles, e.Name()) {
			return refuse
		}
	}
	for _, e := range entries {
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(dir)
}

// Recheck returns the check commands of a demo's evidence. The demo
// server waits for load that only the demo gives it, so it is never rerun
// on its own: with the bundles of both servers of one demo (problem and
// fixed, under the same load), a finding is checked on the fixed server's
// evidence; without them (problem is ""), by running the demo again. out
// is the demo's --out directory.
func Recheck(tool, out, problem, fixed string) diagnose.Recheck {
	q := diagnose.ShellQuote
	if out == "." || out == "" {
		out = "gcdoctor-demo"
	}
	rc := diagnose.Recheck{Tool: tool, Rerun: tool + " demo --out " + q(out+"-tuned")}
	if problem == "" {
		again := tool + " demo --out " + q(out+"-again")
		rc.GCTrace, rc.Heap, rc.Trace = again, again, again
		return rc
	}
	rc.GCTrace = tool + " diff " + q(problem) + " " + q(fixed)
	rc.Heap = tool + " heap " + q(filepath.Join(fixed, bundle.AllocsFile))
	rc.Trace = tool + " trace " + q(filepath.Join(fixed, bundle.TraceFile))
	return rc
}

// ForBundle is Recheck for a bundle of a demo server read again later:
// checked against its fixed twin when the bundle is a demo's problem
// bundle beside one, by running the demo again otherwise.
func ForBundle(tool, path string) diagnose.Recheck {
	problem := filepath.Clean(path)
	out := filepath.Dir(problem)
	fixed := filepath.Join(out, string(demo.Fixed))
	if path == "" || filepath.Base(problem) != string(demo.Problem) || !bundle.IsBundle(fixed) {
		return Recheck(tool, "", "", "")
	}
	rc := Recheck(tool, out, problem, fixed)
	// An older demo kept no trace of the fixed server.
	if st, err := os.Stat(filepath.Join(fixed, bundle.TraceFile)); err != nil || !st.Mode().IsRegular() {
		rc.Trace = Recheck(tool, out, "", "").Trace
	}
	return rc
}
