package cli

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/fleet/fleettest"
)

// TestAttachPrometheus attaches to a real Go server that serves both
// /debug/pprof and /metrics: Debian's Prometheus, scraping itself. It is
// skipped when there is no prometheus binary, and fails when
// GCDOCTOR_PROMETHEUS names one that does not run (.ci/run sets it).
func TestAttachPrometheus(t *testing.T) {
	bin := fleettest.Binary()
	if bin == "" {
		t.Skip("no prometheus binary on PATH (Debian: apt-get install prometheus) nor in $GCDOCTOR_PROMETHEUS")
	}
	addr := startPrometheus(t, bin, time.Now().Add(60*time.Second))
	dir := filepath.Join(t.TempDir(), "ev")
	stdout, stderr, code := run(t, "", nil, "attach", "--seconds", "3", "--out", dir, "--json", addr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Live *struct {
			WindowS       float64  `json:"window_s"`
			Sources       []string `json:"sources"`
			GoVersion     string   `json:"go_version"`
			GCCycles      int      `json:"gc_cycles"`
			GCCPUFraction *float64 `json:"gc_cpu_fraction"`
			GCCPUFrom     string   `json:"gc_cpu_from"`
			HeapGoal      float64  `json:"heap_goal_bytes"`
			HeapAlloc     float64  `json:"heap_alloc_bytes"`
			RSS           float64  `json:"rss_bytes"`
		} `json:"live"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	l := doc.Live
	if l == nil {
		t.Fatalf("no live figures; stderr:\n%s", stderr)
	}
	t.Logf("live: %+v, GC CPU %v", *l, deref(l.GCCPUFraction))
	if !slices.Contains(l.Sources, "memstats") || !slices.Contains(l.Sources, "metrics") {
		t.Errorf("sources %v, want memstats and metrics", l.Sources)
	}
	if l.WindowS < 3 || !strings.HasPrefix(l.GoVersion, "go1.") || l.HeapGoal <= 0 || l.HeapAlloc <= 0 || l.RSS <= l.HeapAlloc {
		t.Errorf("window %v s, go %q, heap %v of a %v goal, RSS %v", l.WindowS, l.GoVersion, l.HeapAlloc, l.HeapGoal, l.RSS)
	}
	// With no cycle in the window the share is 0, known all the same.
	if l.GCCPUFraction == nil || l.GCCPUFrom == "" {
		t.Errorf("GC CPU unknown: %q", l.GCCPUFrom)
	}
	// The bundle is read again later, with the same figures.
	again, stderr, code := run(t, "", nil, "doctor", "--json", dir)
	if code != 0 || !strings.Contains(again, `"gc_cpu_from": "`+l.GCCPUFrom+`"`) {
		t.Errorf("doctor on the bundle: exit %d: %s", code, stderr)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// startPrometheus runs bin on a loopback port with a temporary
// configuration that scrapes itself every second and storage, until the
// test ends, and returns its address once it answers.
func startPrometheus(t *testing.T, bin string, deadline time.Time) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "prometheus.yml")
	cfg := "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: self\n    static_configs:\n      - targets: [\"" + addr + "\"]\n"
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		logf.Close()
	})
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		resp, err := client.Get("http://" + addr + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Fatalf("%s did not become ready in time (last error %v); its log:\n%s", bin, err, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
