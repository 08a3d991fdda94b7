package demo

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// closedPortURL returns a loopback URL on which nothing listens: it binds a
// port and releases it again.
func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/work"
}

func TestLoadClosedPort(t *testing.T) {
	res, err := Load(context.Background(), LoadSpec{
		URL:         closedPortURL(t),
		Requests:    20,
		Concurrency: 4,
		Timeout:     30 * time.Second,
	}, nil)
	if err != nil {
		t.Fatalf("Load: %v (request failures belong in the result)", err)
	}
	if res.Requests != 20 || res.Errors != 20 {
		t.Errorf("Load = %d requests, %d errors, want 20 and 20", res.Requests, res.Errors)
	}
	if res.FirstError == "" {
		t.Error("FirstError is empty")
	}
	if res.RequestsPerSec != 0 || res.P50 != 0 || res.Max != 0 {
		t.Errorf("failed run reports throughput %v, p50 %v, max %v; want zeros", res.RequestsPerSec, res.P50, res.Max)
	}
}

func TestLoadRefusesNonLoopback(t *testing.T) {
	for _, u := range []string{
		"http://example.com/work",
		"http://10.0.0.1:8080/work",
		"http://192.168.1.1/",
		"http://[2001:db8::1]:80/",
		"http://0.0.0.0:8080/",
		"http://localhost.example.com/",
		"http://127.0.0.1.nip.io/",
		"https://127.0.0.1/",
		"127.0.0.1:8080/work",
		"",
	} {
		res, err := Load(context.Background(), LoadSpec{URL: u, Requests: 1, Concurrency: 1}, nil)
		if err == nil || res != nil {
			t.Errorf("Load(%q) = %v, %v; want refusal", u, res, err)
		}
	}
}

func TestLoopbackOnly(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:80":     true,
		"127.1.2.3:80":     true,
		"[::1]:80":         true,
		"10.0.0.1:80":      false,
		"[2001:db8::1]:80": false,
		"0.0.0.0:80":       false,
		"nonsense":         false,
	} {
		if err := loopbackOnly("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("loopbackOnly(%q) = %v, want allowed=%v", addr, err, ok)
		}
	}
}

func TestLoadInvalidSpec(t *testing.T) {
	base := "http://127.0.0.1:1/"
	for name, s := range map[string]LoadSpec{
		"negative requests":    {URL: base, Requests: -1},
		"too many requests":    {URL: base, Requests: MaxRequests + 1},
		"negative concurrency": {URL: base, Concurrency: -1},
		"too much concurrency": {URL: base, Concurrency: MaxConcurrency + 1},
		"negative timeout":     {URL: base, Timeout: -time.Second},
		"negative duration":    {URL: base, MaxDuration: -time.Second},
	} {
		if _, err := Load(context.Background(), s, nil); err == nil {
			t.Errorf("%s: Load accepted %+v", name, s)
		}
	}
}

// TestLoadTimeout checks that a server that never answers cannot make Load
// hang: the Timeout cuts the run and the stuck requests count as errors.
func TestLoadTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)

	res, err := Load(context.Background(), LoadSpec{
		URL:         srv.URL,
		Requests:    10,
		Concurrency: 2,
		Timeout:     500 * time.Millisecond,
	}, nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	// Normally both workers' first requests are in flight when the Timeout
	// expires; on a badly overloaded machine a worker may not have started.
	if res.Requests > 2 || res.Errors != res.Requests {
		t.Errorf("Load = %d requests, %d errors; want at most the 2 in flight, all failed", res.Requests, res.Errors)
	}
	if res.Requests > 0 && !strings.Contains(res.FirstError, "deadline") {
		t.Errorf("FirstError = %q, want a deadline error", res.FirstError)
	}
}

// TestLoadMaxDuration checks that MaxDuration stops new requests while
// letting the ones in flight finish successfully.
func TestLoadMaxDuration(t *testing.T) {
	var served atomic.Int64
	started := make(chan struct{}, 100)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-release
		served.Add(1)
	}))
	defer srv.Close()

	go func() {
		// Hold the first two requests until the soft limit has passed.
		<-started
		<-started
		time.Sleep(100 * time.Millisecond)
		close(release)
	}()
	res, err := Load(context.Background(), LoadSpec{
		URL:         srv.URL,
		Requests:    1000,
		Concurrency: 2,
		MaxDuration: 50 * time.Millisecond,
	}, nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if res.Requests != 2 || res.Errors != 0 {
		t.Errorf("Load = %d requests, %d errors (%s); want 2 and 0", res.Requests, res.Errors, res.FirstError)
	}
}

func TestLoadCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	}))
	defer srv.Close()

	res, err := Load(ctx, LoadSpec{URL: srv.URL, Requests: 100, Concurrency: 1}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Load after cancel: err = %v, want context.Canceled", err)
	}
	if res == nil || res.Requests != 1 {
		t.Errorf("partial result = %+v, want the one request", res)
	}
}

func TestLoadCountsBadStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	res, err := Load(context.Background(), LoadSpec{URL: srv.URL, Requests: 5, Concurrency: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 5 || !strings.Contains(res.FirstError, "503") {
		t.Errorf("Load = %d errors (%q), want 5 with status 503", res.Errors, res.FirstError)
	}
}

func TestLoadDoesNotFollowRedirects(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://192.0.2.1/", http.StatusFound)
	}))
	defer srv.Close()
	res, err := Load(context.Background(), LoadSpec{URL: srv.URL, Requests: 3, Concurrency: 1, Timeout: 10 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 3 || !strings.Contains(res.FirstError, "302") {
		t.Errorf("Load = %d errors (%q), want 3 with status 302", res.Errors, res.FirstError)
	}
}

func TestPercentile(t *testing.T) {
	var lat []time.Duration
	for i := 1; i <= 100; i++ {
		lat = append(lat, time.Duration(i))
	}
	for p, want := range map[float64]time.Duration{50: 50, 90: 90, 99: 99, 100: 100, 0: 1} {
		if got := percentile(lat, p); got != want {
			t.Errorf("percentile(1..100, %v) = %v, want %v", p, got, want)
		}
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("percentile([7], 99) = %v", got)
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("percentile(nil, 50) = %v", got)
	}
}
