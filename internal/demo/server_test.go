package demo

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// childEnv, when set to "1", turns the test binary into a demo server
// process, so the signal handling of ServeMain can be tested for real.
const childEnv = "GCDOCTOR_DEMO_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(ServeMain(os.Args[1:], os.Stdout))
	}
	os.Exit(m.Run())
}

var variants = []Variant{Problem, Fixed}

// startServer runs Serve for v on an ephemeral loopback port and returns
// its base URL; the server is shut down when the test ends.
func startServer(t *testing.T, v Variant) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, v, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a.String()
	case err := <-done:
		cancel()
		t.Fatalf("Serve(%s) failed before ready: %v", v, err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve(%s) = %v after cancel, want nil", v, err)
		}
	})
	return base
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

func TestServeAndLoad(t *testing.T) {
	for _, v := range variants {
		t.Run(string(v), func(t *testing.T) {
			base := startServer(t, v)

			if code, body := get(t, base+"/work"); code != http.StatusOK || body != "done, work" {
				t.Fatalf("GET /work = %d %q, want 200 %q", code, body, "done, work")
			}
			if code, body := get(t, base+"/healthz"); code != http.StatusOK || body != "ok\n" {
				t.Fatalf("GET /healthz = %d %q, want 200 %q", code, body, "ok\n")
			}
			if code, _ := get(t, base+"/debug/pprof/"); code != http.StatusNotFound {
				t.Errorf("GET /debug/pprof/ = %d without -pprof, want 404", code)
			}

			var calls, last int
			res, err := Load(context.Background(), LoadSpec{URL: base + "/work", Requests: 40, Concurrency: 4}, func(done, total int) {
				calls++
				if done != last+1 || total != 40 {
					t.Errorf("progress(%d, %d) after %d, want (%d, 40)", done, total, last, last+1)
				}
				last = done
			})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if res.Requests != 40 || res.Errors != 0 || res.FirstError != "" {
				t.Fatalf("Load = %d requests, %d errors (%q), want 40 and 0", res.Requests, res.Errors, res.FirstError)
			}
			if calls != 40 {
				t.Errorf("progress called %d times, want 40", calls)
			}
			if res.RequestsPerSec <= 0 || res.Elapsed <= 0 {
				t.Errorf("RequestsPerSec = %v, Elapsed = %v, want positive", res.RequestsPerSec, res.Elapsed)
			}
			if !(0 < res.P50 && res.P50 <= res.P90 && res.P90 <= res.P99 && res.P99 <= res.Max) {
				t.Errorf("percentiles not ordered: p50 %v p90 %v p99 %v max %v", res.P50, res.P90, res.P99, res.Max)
			}
		})
	}
}

func TestServeErrors(t *testing.T) {
	if err := Serve(context.Background(), "leaky", "", nil); err == nil {
		t.Error("Serve with unknown variant succeeded")
	}
	// A port that is already bound must be reported, not retried forever.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := Serve(context.Background(), Fixed, ln.Addr().String(), nil); err == nil {
		t.Error("Serve on a busy port succeeded")
	}
}

func TestParseVariant(t *testing.T) {
	for _, v := range variants {
		if got, err := ParseVariant(string(v)); got != v || err != nil {
			t.Errorf("ParseVariant(%q) = %q, %v", v, got, err)
		}
	}
	if _, err := ParseVariant("Problem"); err == nil {
		t.Error(`ParseVariant("Problem") succeeded; variants are case-sensitive`)
	}
}

var listeningLine = regexp.MustCompile(`^listening on (http://127\.0\.0\.1:[0-9]+)\n$`)

// runServeMain starts serveMain with args and returns the base URL from its
// listening line and a function that stops it and returns its exit code and
// everything else it wrote.
func runServeMain(t *testing.T, args ...string) (string, func() (int, string, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr strings.Builder
	codec := make(chan int, 1)
	go func() {
		code := serveMain(ctx, args, pw, &stderr)
		pw.Close()
		codec <- code
	}()
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("serveMain %q: no listening line (%v); exit %d; stderr: %s", args, err, <-codec, stderr.String())
	}
	m := listeningLine.FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("serveMain %q printed %q, want %q", args, line, listeningLine)
	}
	stop := func() (int, string, string) {
		cancel()
		rest, _ := io.ReadAll(br)
		code := <-codec
		return code, string(rest), stderr.String()
	}
	return m[1], stop
}

func TestServeMain(t *testing.T) {
	base, stop := runServeMain(t, "-variant", "fixed")
	if code, body := get(t, base+"/work"); code != http.StatusOK || body != "done, work" {
		t.Errorf("GET /work = %d %q", code, body)
	}
	code, rest, stderr := stop()
	if code != 0 {
		t.Errorf("exit code %d, want 0; stderr: %s", code, stderr)
	}
	if rest != "" {
		t.Errorf("stdout after the listening line: %q, want nothing", rest)
	}
}

func TestServeMainPprof(t *testing.T) {
	base, stop := runServeMain(t, "-variant", "problem", "-pprof", "-addr", "127.0.0.1:0")
	if code, body := get(t, base+"/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "heap") {
		t.Errorf("GET /debug/pprof/ = %d, body lacks heap profile link", code)
	}
	if code, _ := get(t, base+"/debug/pprof/heap?debug=1"); code != http.StatusOK {
		t.Errorf("GET /debug/pprof/heap = %d, want 200", code)
	}
	if code, _, stderr := stop(); code != 0 {
		t.Errorf("exit code %d, want 0; stderr: %s", code, stderr)
	}
}

func TestServeMainBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-variant", "leaky"},
		{"-nosuchflag"},
		{"extra"},
	} {
		var stdout, stderr strings.Builder
		if code := serveMain(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("serveMain %q = %d, want 2", args, code)
		}
		if stdout.Len() != 0 {
			t.Errorf("serveMain %q wrote to stdout: %q", args, stdout.String())
		}
		if stderr.Len() == 0 {
			t.Errorf("serveMain %q explained nothing on stderr", args)
		}
	}
}

// TestServeMainSignal runs ServeMain in a child process, as gcdoctor does,
// and checks that SIGINT and SIGTERM both lead to a clean exit 0.
func TestServeMainSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT/SIGTERM delivery to a child on windows")
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(fmt.Sprint(sig), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-variant", "problem")
			cmd.Env = append(os.Environ(), childEnv+"=1")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(out)
			line, err := br.ReadString('\n')
			m := listeningLine.FindStringSubmatch(line)
			if m == nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child printed %q (%v), want %q; stderr: %s", line, err, listeningLine, stderr.String())
			}
			if code, body := get(t, m[1]+"/work"); code != http.StatusOK || body != "done, work" {
				t.Errorf("GET /work = %d %q", code, body)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(br)
			if err := cmd.Wait(); err != nil {
				t.Errorf("child after %v: %v, want exit 0; stderr: %s", sig, err, stderr.String())
			}
			if len(rest) != 0 {
				t.Errorf("child stdout after the listening line: %q", rest)
			}
		})
	}
}

// serveDirect sends one GET /work straight to h, bypassing the network, so
// that only the handler's own allocations are measured.
func serveDirect(tb testing.TB, h http.Handler) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/work", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != "done, work" {
		tb.Fatalf("GET /work = %d %q", rec.Code, rec.Body.String())
	}
}

// bytesPerRequest returns the average heap bytes allocated per request to
// variant v over n requests, after one warm-up request.
func bytesPerRequest(t *testing.T, v Variant, n int) float64 {
	h := Handler(v)
	// With a single P the pooled buffer is always found in that P's local
	// pool slot; with several, a goroutine moved to another P between Put
	// and Get would miss it and allocate a new one, making the figure noisy.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	serveDirect(t, h)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		serveDirect(t, h)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// TestAllocationsPerRequest checks the claim the demo makes: the problem
// handler allocates its 10 MB buffer on every request and the fixed one
// does not.
func TestAllocationsPerRequest(t *testing.T) {
	const n = 20
	if got := bytesPerRequest(t, Problem, n); got < 10<<20 {
		t.Errorf("problem variant allocates %.0f bytes/request, want >= %d", got, 10<<20)
	} else {
		t.Logf("problem: %.0f bytes/request", got)
	}
	if raceEnabled {
		t.Skip("sync.Pool drops values at random under the race detector")
	}
	if got := bytesPerRequest(t, Fixed, n); got >= 1<<20 {
		t.Errorf("fixed variant allocates %.0f bytes/request, want < %d", got, 1<<20)
	} else {
		t.Logf("fixed: %.0f bytes/request", got)
	}
}

func TestHandlerUnknownVariantPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Handler(\"leaky\") did not panic")
		}
	}()
	Handler("leaky")
}

func BenchmarkHandler(b *testing.B) {
	for _, v := range variants {
		b.Run(string(v), func(b *testing.B) {
			h := Handler(v)
			req := httptest.NewRequest(http.MethodGet, "/work", nil)
			// Warm-up, so the fixed variant's one pool fill is not charged
			// to the first iterations; b.Loop resets the counters.
			h.ServeHTTP(httptest.NewRecorder(), req)
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}

func TestGCStatsEndpoint(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan net.Addr, 1)
	go Serve(ctx, Problem, "127.0.0.1:0", func(a net.Addr) { addrc <- a })
	base := "http://" + (<-addrc).String()
	before, err := FetchGCStats(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, LoadSpec{URL: base + "/work", Requests: 8, Concurrency: 2}, nil); err != nil {
		t.Fatal(err)
	}
	after, err := FetchGCStats(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	// Eight requests of the problem variant allocate at least 80 MB.
	if d := after.AllocBytes - before.AllocBytes; d < 8*10<<20 {
		t.Errorf("allocated %d bytes for 8 requests", d)
	}
	if after.UptimeS <= before.UptimeS || after.GOMAXPROCS < 1 || after.Cycles < before.Cycles {
		t.Errorf("snapshots not ordered: %+v then %+v", before, after)
	}
	if _, err := FetchGCStats(ctx, "http://192.0.2.1:80"); err == nil {
		t.Errorf("a non-loopback address was accepted")
	}
}
