// Package agent serves, from inside a running Go program, the evidence of
// its garbage collector that net/http/pprof does not: every runtime/metrics
// sample as JSON (the GC's exact share of the CPU by class, the pause and
// scheduling-latency histograms, the heap goal, the live heap, the stacks
// and globals the GC scans), a flight-recorder snapshot of the seconds
// before the request (runtime/trace.FlightRecorder), and the goroutine-leak
// profile where the runtime has one. gcdoctor attach and gcdoctor doctor
// read it when it is there.
//
// It is mounted like net/http/pprof, with one line:
//
//	agent.Register(http.DefaultServeMux) // or any *http.ServeMux
//
// which serves, under /debug/gcdoctor/:
//
//	metrics         runtime/metrics, as JSON (see Snapshot)
//	flightrecorder  the execution trace of the last seconds (Go 1.25+)
//	goroutineleak   the goroutine-leak profile (Go 1.26 built with
//	                GOEXPERIMENT=goroutineleakprofile), 404 otherwise
//
// A program that runs to completion, with no server to attach to, can
// still leave gcdoctor its heap at the peak: WatchHeapPeak writes the heap
// profile where gcdoctor run and doctor ask for it (HeapPeakEnv).
//
// The package imports nothing beyond the standard library, so a service
// that imports it compiles in no other code. Like /debug/pprof, these
// endpoints belong on an internal port.
package agent

import (
	"fmt"
	"net/http"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Prefix is the path under which Register mounts the agent.
const Prefix = "/debug/gcdoctor/"

// The paths of the agent's endpoints, under Prefix.
const (
	MetricsPath        = "metrics"
	FlightRecorderPath = "flightrecorder"
	GoroutineLeakPath  = "goroutineleak"
)

// Options configure an Agent. The zero value keeps a flight recorder of
// the last 10 s, at most 16 MiB.
type Options struct {
	// NoFlightRecorder leaves the flight recorder off: tracing costs the
	// program a little CPU all the time, which some services may not
	// want to pay.
	NoFlightRecorder bool
	// MinAge is how much of the recent past the flight recorder keeps at
	// least; 0 means 10 s.
	MinAge time.Duration
	// MaxBytes bounds the flight recorder's memory; 0 means 16 MiB.
	MaxBytes uint64
}

// Agent serves the endpoints. Its zero value is not usable: call New.
type Agent struct {
	fr *trace.FlightRecorder
	// frErr says why there is no flight recorder, "" when there is one.
	frErr string
	// snap serialises snapshots: one of them at a time is enough, and a
	// flood of requests then costs one core at most.
	snap sync.Mutex
}

// New starts an agent and, unless o says otherwise, its flight recorder.
// A flight recorder that cannot start (one is already running in the
// program) is not an error: the agent then serves the rest, and its
// flightrecorder endpoint says why it has none.
func New(o Options) *Agent {
	a := &Agent{}
	if o.NoFlightRecorder {
		a.frErr = "the flight recorder is off (agent.Options.NoFlightRecorder)"
		return a
	}
	cfg := trace.FlightRecorderConfig{MinAge: o.MinAge, MaxBytes: o.MaxBytes}
	if cfg.MinAge == 0 {
		cfg.MinAge = 10 * time.Second
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = 16 << 20
	}
	fr := trace.NewFlightRecorder(cfg)
	if err := fr.Start(); err != nil {
		a.frErr = "the flight recorder did not start: " + err.Error()
		return a
	}
	a.fr = fr
	return a
}

// Close stops the flight recorder, if the agent started one.
func (a *Agent) Close() {
	if a.fr != nil {
		a.fr.Stop()
	}
}

// Register mounts a new agent with the default options on mux under
// Prefix, and returns it.
func Register(mux *http.ServeMux) *Agent {
	a := New(Options{})
	mux.Handle(Prefix, a)
	return a
}

// ServeHTTP serves the endpoint the path names, wherever the agent is
// mounted: the part of the path after the last "/debug/gcdoctor/" (or,
// when mounted elsewhere, after the last slash) selects it.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := r.URL.Path
	if i := strings.LastIndex(name, Prefix); i >= 0 {
		name = name[i+len(Prefix):]
	} else if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	switch name {
	case "":
		a.index(w)
	case MetricsPath:
		a.metrics(w)
	case FlightRecorderPath:
		a.flightRecorder(w)
	case GoroutineLeakPath:
		goroutineLeak(w, r)
	default:
		http.Error(w, "no such gcdoctor agent endpoint; see "+Prefix, http.StatusNotFound)
	}
}

// index lists the endpoints and whether each has something to serve.
func (a *Agent) index(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fr := "a snapshot of the last seconds' execution trace"
	if a.fr == nil {
		fr = "none: " + a.frErr
	}
	leak := "the goroutine-leak profile"
	if pprof.Lookup(GoroutineLeakPath) == nil {
		leak = "none: " + noLeakProfile
	}
	fmt.Fprintf(w, "gcdoctor agent\n\n%s\truntime/metrics as JSON\n%s\t%s\n%s\t%s\n",
		MetricsPath, FlightRecorderPath, fr, GoroutineLeakPath, leak)
}

func (a *Agent) metrics(w http.ResponseWriter) {
	a.snap.Lock()
	data, err := a.Snapshot().encode()
	a.snap.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
}

func (a *Agent) flightRecorder(w http.ResponseWriter) {
	if a.fr == nil {
		http.Error(w, a.frErr, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="flightrecorder.trace"`)
	if _, err := a.fr.WriteTo(w); err != nil {
		// Once bytes are sent the status cannot change; a snapshot cut
		// short does not start with a trace header, or ends early, and
		// readers say so.
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	}
}

// noLeakProfile says why a runtime has no goroutine-leak profile.
const noLeakProfile = "this program was not built with GOEXPERIMENT=goroutineleakprofile (Go 1.26+)"

// goroutineLeak writes the goroutine-leak profile, in the format
// net/http/pprof would: gzipped protobuf, or text with ?debug=1.
func goroutineLeak(w http.ResponseWriter, r *http.Request) {
	p := pprof.Lookup(GoroutineLeakPath)
	if p == nil {
		http.Error(w, noLeakProfile, http.StatusNotFound)
		return
	}
	debug, _ := strconv.Atoi(r.URL.Query().Get("debug"))
	if debug != 0 {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "application/octet-stream")
	}
	if err := p.WriteTo(w, min(max(debug, 0), 2)); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}
