package collect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gcdoctor/gcdoctor/agent"
	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/live"
)

// TestAttachAgent: with gcdoctor's agent mounted and no trace asked for,
// attach stores the agent's samples beside MemStats and takes the flight
// recording as the trace.
func TestAttachAgent(t *testing.T) {
	mux := pprofMux()
	a := agent.Register(mux)
	defer a.Close()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "b")
	w, err := bundle.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Attach(context.Background(), AttachSpec{URL: srv.URL, Out: w})
	if err != nil {
		t.Fatal(err)
	}
	if res.Live == nil || !slices.Equal(res.Live.Sources, []live.Source{live.Agent, live.MemStats}) {
		t.Fatalf("live %+v", res.Live)
	}
	if !strings.Contains(strings.Join(res.Live.Agent, "; "), "flight-recorder trace") || !strings.Contains(res.Files[bundle.TraceFile], "flight-recorder") {
		t.Errorf("agent added %q; trace.out: %q", res.Live.Agent, res.Files[bundle.TraceFile])
	}
	for _, f := range []string{"agent-start.json", "agent-end.json", "memstats-start.txt", "memstats-end.txt", bundle.LiveTimesFile, bundle.TraceFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestAttachMetricsOnly: a program that serves /metrics and no profile
// fails attach, yet what it serves of its GC is kept for the diagnosis.
func TestAttachMetricsOnly(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector())
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "b")
	w, err := bundle.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Attach(context.Background(), AttachSpec{URL: srv.URL, Out: w})
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("error %v, want the allocs profile's 404", err)
	}
	if res == nil || res.Live == nil || !slices.Equal(res.Live.Sources, []live.Source{live.Metrics}) || res.Files["metrics-end.txt"] == "" {
		t.Fatalf("result %+v", res)
	}
	if res.Meta == nil {
		t.Error("no meta.json for what was kept")
	}
}
