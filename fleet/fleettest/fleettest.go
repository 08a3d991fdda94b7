// Package fleettest runs a real Prometheus server scraping real Go
// services, for the tests of gcdoctor fleet: the example services of
// examples/fleet/service, each with its GC behaviour, scraped every
// second by Debian's prometheus binary on a loopback port, with a
// temporary configuration and storage.
package fleettest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Service is one example service to run: its job label, its mode
// (alloc, memlimit, growth, healthy) and whether it exports the runtime
// metrics set.
type Service struct {
	Job, Mode      string
	RuntimeMetrics bool
	// Env is added to the service's environment.
	Env []string
}

// Server is a running Prometheus and the services it scrapes.
type Server struct {
	// URL is Prometheus's base URL.
	URL string
	// Targets maps each job to its services' addresses (host:port).
	Targets map[string][]string
}

// Binary returns the prometheus binary: $GCDOCTOR_PROMETHEUS or the one
// on PATH; "" when there is none.
func Binary() string {
	if p := os.Getenv("GCDOCTOR_PROMETHEUS"); p != "" {
		return p
	}
	p, err := exec.LookPath("prometheus")
	if err != nil {
		return ""
	}
	return p
}

// Start builds and starts the services and a Prometheus scraping them
// every second, and waits until each has been scraped scrapes times; it
// fails the test past deadline. Everything stops when the test ends. It
// skips the test when no prometheus binary can be found (apt-get install
// prometheus; .ci/run installs it).
func Start(t testing.TB, services []Service, scrapes int, deadline time.Duration) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skip("no prometheus binary on PATH (Debian: apt-get install prometheus) nor in $GCDOCTOR_PROMETHEUS")
	}
	stop := time.Now().Add(deadline)
	dir := t.TempDir()
	svc := filepath.Join(dir, "service")
	if out, err := exec.Command("go", "build", "-o", svc, "github.com/gcdoctor/gcdoctor/examples/fleet/service").CombinedOutput(); err != nil {
		t.Fatalf("building the example service: %v\n%s", err, out)
	}
	srv := &Server{Targets: map[string][]string{}}
	var jobs []string
	for _, s := range services {
		addr := startService(t, svc, s, stop)
		if srv.Targets[s.Job] == nil {
			jobs = append(jobs, s.Job)
		}
		srv.Targets[s.Job] = append(srv.Targets[s.Job], addr)
	}
	var cfg strings.Builder
	cfg.WriteString("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n")
	for _, j := range jobs {
		fmt.Fprintf(&cfg, "  - job_name: %q\n    static_configs:\n      - targets: [%s]\n", j, quoteAll(srv.Targets[j]))
	}
	conf := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(conf, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	srv.URL = "http://127.0.0.1:" + port
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address=127.0.0.1:"+port, "--log.level=warn")
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
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
	waitScrapes(t, srv, len(services), scrapes, stop, filepath.Join(dir, "prometheus.log"))
	return srv
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// startService starts one example service and returns its address.
func startService(t testing.TB, bin string, s Service, stop time.Time) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	args := []string{"-addr", "127.0.0.1:0", "-mode", s.Mode}
	if s.RuntimeMetrics {
		args = append(args, "-runtime-metrics")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append(os.Environ(), "GOMAXPROCS=1"), s.Env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting the %s service: %v", s.Mode, err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	addr := make(chan string, 1)
	var once sync.Once
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			once.Do(func() { addr <- strings.TrimSpace(sc.Text()) })
		}
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(time.Until(stop)):
		t.Fatalf("the %s service did not print its address in time", s.Mode)
	}
	return ""
}

func freePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// waitScrapes polls Prometheus until every target has n successful
// scrapes stored, or fails the test at stop.
func waitScrapes(t testing.TB, srv *Server, targets, n int, stop time.Time, logPath string) {
	t.Helper()
	c, err := api.NewClient(api.Config{Address: srv.URL, Client: &http.Client{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	a := v1.NewAPI(c)
	q := fmt.Sprintf("count_over_time(up[%ds]) >= %d", n+5, n)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		v, _, _, err := a.Query(ctx, q, time.Now())
		cancel()
		if vec, ok := v.(model.Vector); err == nil && ok && len(vec) >= targets {
			return
		}
		if time.Now().After(stop) {
			log, _ := os.ReadFile(logPath)
			t.Fatalf("Prometheus did not store %d scrapes of %d targets in time (last error: %v); its log:\n%s", n, targets, err, log)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
