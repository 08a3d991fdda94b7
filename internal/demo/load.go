package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Defaults of a demo load run, chosen for a 2-core machine with the server
// in its own process under GODEBUG=gctrace=1 and the load generator beside
// it. There, on an otherwise idle machine, each variant's load phase takes
// 2-8 s (about 2 s fixed, 5 s problem), the problem variant runs about 500
// GC cycles against 2 or 3 for the fixed one, and the fixed variant serves
// roughly twice the requests per second with a third of the p99 latency,
// consistently from run to run. Concurrency is far below the -c 100 of the
// classic ab run because every in-flight problem request holds 10 MB live:
// at 100 the problem server peaks near 2 GB of RSS, at 4 near 130 MB,
// while the contrast stays as sharp. On more cores both phases finish
// sooner; the GC counts, which follow from the bytes allocated, hardly
// change.
const (
	// DefaultRequests is the number of requests sent to each variant.
	DefaultRequests = 1200
	// DefaultConcurrency is the number of requests kept in flight.
	DefaultConcurrency = 4
)

// DefaultTimeout bounds a whole load run when LoadSpec.Timeout is zero.
const DefaultTimeout = 2 * time.Minute

// Upper bounds of a LoadSpec. Latencies are recorded individually to get
// exact percentiles, so the request count must stay bounded; concurrency
// beyond the limit only measures the load generator itself.
const (
	// MaxRequests is the largest LoadSpec.Requests accepted.
	MaxRequests = 100_000
	// MaxConcurrency is the largest LoadSpec.Concurrency accepted.
	MaxConcurrency = 1024
)

// maxBody caps how much of a response body is read. The demo server's
// bodies are a few bytes; the cap keeps a misdirected run bounded in memory.
const maxBody = 1 << 20

// LoadSpec describes a closed-loop load run: Concurrency workers each send
// one request, wait for the full response and send the next, until Requests
// have been sent, MaxDuration has passed, or the run is cancelled.
type LoadSpec struct {
	// URL is fetched with GET. Its host must be a loopback address or
	// "localhost"; Load refuses anything else.
	URL string
	// Requests is the total number of requests; zero means DefaultRequests.
	Requests int
	// Concurrency is the number of requests in flight; zero means
	// DefaultConcurrency. It is lowered to Requests if larger.
	Concurrency int
	// Timeout is a hard limit on the whole run, zero meaning DefaultTimeout.
	// When it expires, requests still in flight are cancelled and counted
	// as errors.
	Timeout time.Duration
	// MaxDuration, if positive, is a soft limit: no request is started after
	// it has passed, but those in flight are allowed to finish.
	MaxDuration time.Duration
}

// LoadResult summarises a load run.
type LoadResult struct {
	// Requests is the number of requests that completed, successfully or
	// not. It is less than LoadSpec.Requests when a limit stopped the run.
	Requests int
	// Errors is how many of them failed: transport errors, non-200
	// statuses, unreadable bodies, and requests cut off by the Timeout.
	Errors int
	// Elapsed is the wall time from the first request to the last response.
	Elapsed time.Duration
	// RequestsPerSec is successful requests divided by Elapsed.
	RequestsPerSec float64
	// P50, P90, P99 and Max are exact nearest-rank latency percentiles of
	// the successful requests, body read included; zero when none
	// succeeded. Failed requests are left out because a refused connection
	// fails in microseconds and would make a broken server look fast.
	P50, P90, P99, Max time.Duration
	// FirstError describes the first failure, or is empty.
	FirstError string
}

// Load runs the closed-loop load described by s and returns its summary.
// progress, if not nil, is called after each completed request with the
// number completed so far and the number planned; calls are serialised and
// should return quickly, since they hold up the workers.
//
// Load returns an error without sending anything if s is invalid or its
// URL is not on loopback. If ctx is cancelled it stops early and returns
// the partial result together with ctx's error. Failures of individual
// requests are not errors of Load: they are counted in the result.
func Load(ctx context.Context, s LoadSpec, progress func(done, total int)) (*LoadResult, error) {
	s, target, err := normalize(s)
	if err != nil {
		return nil, err
	}

	runCtx, cancelRun := context.WithTimeout(ctx, s.Timeout)
	defer cancelRun()

	tr := newTransport(s.Concurrency)
	defer tr.CloseIdleConnections()
	client := &http.Client{
		Transport: tr,
		// A redirect could only come from a misbehaving server; following
		// it would send load somewhere the caller did not name.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}

	var (
		tickets atomic.Int64 // requests handed out to workers so far
		mu      sync.Mutex   // guards res, latencies and progress calls
		res     LoadResult
		lat     = make([]time.Duration, 0, s.Requests)
		wg      sync.WaitGroup
	)
	start := time.Now()
	// Checked before each request rather than through a context, so a
	// worker never starts a request after the soft limit however late a
	// timer fires.
	mayStart := func() bool {
		return runCtx.Err() == nil && (s.MaxDuration == 0 || time.Since(start) < s.MaxDuration)
	}
	for range s.Concurrency {
		wg.Go(func() {
			for mayStart() && tickets.Add(1) <= int64(s.Requests) {
				t0 := time.Now()
				err := fetch(runCtx, client, target)
				d := time.Since(t0)

				mu.Lock()
				res.Requests++
				if err != nil {
					res.Errors++
					if res.FirstError == "" {
						res.FirstError = err.Error()
					}
				} else {
					lat = append(lat, d)
				}
				if progress != nil {
					progress(res.Requests, s.Requests)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.Elapsed = time.Since(start)

	if res.Elapsed > 0 {
		res.RequestsPerSec = float64(len(lat)) / res.Elapsed.Seconds()
	}
	slices.Sort(lat)
	res.P50 = percentile(lat, 50)
	res.P90 = percentile(lat, 90)
	res.P99 = percentile(lat, 99)
	if len(lat) > 0 {
		res.Max = lat[len(lat)-1]
	}
	if err := ctx.Err(); err != nil {
		return &res, fmt.Errorf("demo: load interrupted: %w", err)
	}
	return &res, nil
}

// normalize validates s, fills in defaults and returns the parsed URL.
func normalize(s LoadSpec) (LoadSpec, string, error) {
	u, err := checkLoopbackURL(s.URL)
	if err != nil {
		return s, "", err
	}
	switch {
	case s.Requests < 0 || s.Requests > MaxRequests:
		return s, "", fmt.Errorf("demo: load requests %d out of range 0..%d (0 means the default)", s.Requests, MaxRequests)
	case s.Concurrency < 0 || s.Concurrency > MaxConcurrency:
		return s, "", fmt.Errorf("demo: load concurrency %d out of range 0..%d (0 means the default)", s.Concurrency, MaxConcurrency)
	case s.Timeout < 0:
		return s, "", fmt.Errorf("demo: negative load timeout %v", s.Timeout)
	case s.MaxDuration < 0:
		return s, "", fmt.Errorf("demo: negative load max duration %v", s.MaxDuration)
	}
	if s.Requests == 0 {
		s.Requests = DefaultRequests
	}
	if s.Concurrency == 0 {
		s.Concurrency = DefaultConcurrency
	}
	s.Concurrency = min(s.Concurrency, s.Requests)
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	return s, u.String(), nil
}

// checkLoopbackURL parses raw and refuses it unless it is an http URL whose
// host is a loopback IP literal or "localhost". This tool must never put
// load on another machine. The dialer re-checks the resolved address (see
// loopbackOnly), so a "localhost" that resolves elsewhere is refused too.
func checkLoopbackURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("demo: load URL: %w", err)
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("demo: load URL %q: scheme must be http", raw)
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return u, nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return u, nil
	}
	return nil, fmt.Errorf("demo: load URL %q: host %q is not a loopback address; refusing to generate load against another machine", raw, host)
}

// loopbackOnly is a net.Dialer Control function that refuses to connect to
// any address that is not loopback, whatever name it was resolved from.
func loopbackOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("demo: refusing to connect to non-loopback address %s", address)
	}
	return nil
}

// newTransport returns a keep-alive transport with one idle connection per
// worker, so a closed-loop run reuses its connections instead of measuring
// TCP handshakes (and exhausting ephemeral ports).
func newTransport(concurrency int) *http.Transport {
	d := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   loopbackOnly,
	}
	return &http.Transport{
		Proxy:               nil, // loopback traffic must never go through a proxy
		DialContext:         d.DialContext,
		MaxIdleConns:        concurrency,
		MaxIdleConnsPerHost: concurrency,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
}

// fetch sends one GET and reads the whole body, which both measures the full
// response time and lets the transport reuse the connection.
func fetch(ctx context.Context, client *http.Client, target string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, readErr := io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	closeErr := resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: unexpected status %s", target, resp.Status)
	}
	if err := errors.Join(readErr, closeErr); err != nil {
		return fmt.Errorf("GET %s: reading body: %w", target, err)
	}
	return nil
}

// percentile returns the nearest-rank p-th percentile of sorted, or zero if
// it is empty.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = max(1, min(rank, n))
	return sorted[rank-1]
}
