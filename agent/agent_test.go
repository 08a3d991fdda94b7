package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// TestStdOnly holds the package to its promise: a service that imports it
// compiles in nothing beyond the standard library.
func TestStdOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/gcdoctor/gcdoctor/agent" {
			t.Errorf("the agent depends on %s, which is not in the standard library", p)
		}
	}
}

func get(t *testing.T, h http.Handler, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
	return w
}

func TestEndpoints(t *testing.T) {
	mux := http.NewServeMux()
	a := Register(mux)
	defer a.Close()
	runtime.GC()

	w := get(t, mux, "GET", Prefix+MetricsPath)
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("metrics: %d %s", w.Code, w.Header().Get("Content-Type"))
	}
	var s Snapshot
	if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if s.GoVersion != runtime.Version() || !s.FlightRecorder {
		t.Errorf("go_version %q flight_recorder %v", s.GoVersion, s.FlightRecorder)
	}
	if want := pprof.Lookup(GoroutineLeakPath) != nil; s.GoroutineLeak != want {
		t.Errorf("goroutine_leak %v, the runtime has the profile: %v", s.GoroutineLeak, want)
	}
	cycles := s.Metrics["/gc/cycles/total:gc-cycles"]
	if cycles.Uint64 == nil || *cycles.Uint64 == 0 {
		t.Errorf("/gc/cycles/total:gc-cycles = %+v after a runtime.GC", cycles)
	}
	gc := s.Metrics["/cpu/classes/gc/total:cpu-seconds"]
	if gc.Float64 == nil || *gc.Float64 < 0 {
		t.Errorf("/cpu/classes/gc/total:cpu-seconds = %+v", gc)
	}
	lat := s.Metrics["/sched/latencies:seconds"].Histogram
	if lat == nil || len(lat.Buckets) != len(lat.Counts)+1 || !math.IsInf(float64(lat.Buckets[len(lat.Buckets)-1]), 1) {
		t.Errorf("/sched/latencies:seconds: %+v", lat)
	}

	w = get(t, mux, "GET", Prefix+FlightRecorderPath)
	if w.Code != http.StatusOK || !bytes.HasPrefix(w.Body.Bytes(), []byte("go 1.")) {
		t.Errorf("flightrecorder: %d, starts %q", w.Code, w.Body.Bytes()[:min(16, w.Body.Len())])
	}

	w = get(t, mux, "GET", Prefix+GoroutineLeakPath)
	if pprof.Lookup(GoroutineLeakPath) == nil {
		if w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "GOEXPERIMENT=goroutineleakprofile") {
			t.Errorf("goroutineleak without the experiment: %d %q", w.Code, w.Body.String())
		}
	} else if w.Code != http.StatusOK {
		t.Errorf("goroutineleak: %d", w.Code)
	}

	for _, tc := range []struct {
		method, path string
		code         int
		body         string
	}{
		{"GET", Prefix, http.StatusOK, "runtime/metrics as JSON"},
		{"GET", Prefix + "nothing", http.StatusNotFound, "no such gcdoctor agent endpoint"},
		{"POST", Prefix + MetricsPath, http.StatusMethodNotAllowed, "method not allowed"},
	} {
		w := get(t, mux, tc.method, tc.path)
		if w.Code != tc.code || !strings.Contains(w.Body.String(), tc.body) {
			t.Errorf("%s %s: %d %q, want %d and %q", tc.method, tc.path, w.Code, w.Body.String(), tc.code, tc.body)
		}
	}
}

// TestNoFlightRecorder: a second recorder cannot start while one runs, and
// one that is turned off is not started; the agent serves the rest and says
// why there is no trace.
func TestNoFlightRecorder(t *testing.T) {
	first := New(Options{})
	defer first.Close()
	for _, tc := range []struct {
		name string
		a    *Agent
		why  string
	}{
		{"second", New(Options{}), "did not start"},
		{"off", New(Options{NoFlightRecorder: true}), "NoFlightRecorder"},
	} {
		srv := httptest.NewServer(tc.a)
		resp, err := http.Get(srv.URL + Prefix + FlightRecorderPath)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), tc.why) {
			t.Errorf("%s: %d %q, want 404 saying %q", tc.name, resp.StatusCode, body, tc.why)
		}
		if tc.a.Snapshot().FlightRecorder {
			t.Errorf("%s: the snapshot says a flight recorder runs", tc.name)
		}
		tc.a.Close()
	}
}

func TestFloatJSON(t *testing.T) {
	in := []Float{Float(math.Inf(-1)), 0, 1.5e-9, Float(math.Inf(1)), Float(math.NaN())}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `["-Inf",0,1.5e-09,"+Inf","NaN"]` {
		t.Errorf("encoded as %s", data)
	}
	var out []Float
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if a, b := float64(in[i]), float64(out[i]); a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
			t.Errorf("%d: %v came back as %v", i, a, b)
		}
	}
	for _, bad := range []string{`"inf"`, `"1"`, `true`} {
		var f Float
		if err := json.Unmarshal([]byte(bad), &f); err == nil {
			t.Errorf("%s was read as %v", bad, f)
		}
	}
}
