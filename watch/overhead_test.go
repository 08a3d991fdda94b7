package watch

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// BenchmarkWatchedService measures what watching costs the watched: the
// time a service takes per request, alone and while gcdoctor watch (its
// own process, as in use) reads it every second through /metrics and
// /debug/pprof/heap?debug=1. Compare the two with benchstat:
//
//	go test ./watch -run '^$' -bench WatchedService -benchtime 10s -count 6 > bench.txt
//	benchstat -col /watch bench.txt
func BenchmarkWatchedService(b *testing.B) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.Handle("/debug/pprof/heap", pprof.Handler("heap"))
	type item struct {
		ID    int      `json:"id"`
		Name  string   `json:"name"`
		Tags  []string `json:"tags"`
		Score float64  `json:"score"`
	}
	mux.HandleFunc("/work", func(w http.ResponseWriter, r *http.Request) {
		items := make([]item, 200)
		for i := range items {
			items[i] = item{ID: i, Name: "item", Tags: []string{"a", "b"}, Score: float64(i) / 3}
		}
		json.NewEncoder(w).Encode(items)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	bin := benchGcdoctor(b)
	for _, watched := range []bool{false, true} {
		name := "watch=none"
		if watched {
			name = "watch=1s"
		}
		b.Run(name, func(b *testing.B) {
			if watched {
				ctx, cancel := context.WithCancel(context.Background())
				cmd := exec.CommandContext(ctx, bin, "watch", "--json-lines", "--interval", "1s", srv.URL)
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				defer func() { cancel(); cmd.Wait() }()
			}
			for b.Loop() {
				resp, err := http.Get(srv.URL + "/work")
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkServeSample measures the work one sample asks of the watched
// service, in its own process: serving /metrics (client_golang's Go and
// process collectors) and /debug/pprof/heap?debug=1 (which stops the world
// to read MemStats). At one sample a second, the two together over a
// second are the share of one CPU that watching takes.
func BenchmarkServeSample(b *testing.B) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, h := range []struct {
		name, path string
		h          http.Handler
	}{
		{"source=metrics", "/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{})},
		{"source=memstats", "/debug/pprof/heap?debug=1", pprof.Handler("heap")},
	} {
		b.Run(h.name, func(b *testing.B) {
			for b.Loop() {
				w := httptest.NewRecorder()
				h.h.ServeHTTP(w, httptest.NewRequest("GET", h.path, nil))
				if w.Code != http.StatusOK {
					b.Fatalf("%s: %d", h.path, w.Code)
				}
			}
		})
	}
}

func benchGcdoctor(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "gcdoctor")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/gcdoctor").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v: %s", err, out)
	}
	return bin
}
