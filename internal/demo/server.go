// Package demo is the built-in example workload of "gcdoctor demo": a small
// HTTP server whose handler allocates a fresh 10 MB buffer per request (the
// classic "GC costs too much" case), the same server with the buffers reused
// through a sync.Pool, and a bounded load generator that drives either one
// over loopback.
//
// The server is meant to run as a separate process (see ServeMain) so that
// its GODEBUG=gctrace=1 output, heap profile and memory use belong to the
// workload alone and not to the tool that measures it.
package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Variant selects which version of the /work handler a server runs.
type Variant string

const (
	// Problem allocates a new 10 MB buffer for every request, so the
	// allocation rate, and with it the GC frequency, grows with the
	// request rate.
	Problem Variant = "problem"
	// Fixed takes its buffer from a sync.Pool and returns it afterwards, so
	// steady-state requests allocate almost nothing.
	Fixed Variant = "fixed"
)

// DefaultAddr is the address Serve and ServeMain listen on when none is
// given: loopback only, on a port chosen by the kernel, so a demo never
// collides with a running service and is never reachable from outside.
const DefaultAddr = "127.0.0.1:0"

// shutdownGrace bounds how long a graceful shutdown waits for in-flight
// requests; a /work request takes milliseconds, so this is only reached when
// a client stalls.
const shutdownGrace = 5 * time.Second

// ParseVariant returns the Variant named s ("problem" or "fixed").
func ParseVariant(s string) (Variant, error) {
	switch v := Variant(s); v {
	case Problem, Fixed:
		return v, nil
	}
	return "", fmt.Errorf("demo: unknown variant %q (want %q or %q)", s, Problem, Fixed)
}

// newBuf returns a new scratch buffer. It is deliberately a separate small
// function so that a heap profile of the problem variant attributes the
// allocations to it by name and line.
func newBuf() []byte { return make([]byte, 10<<20) }

// bufPool holds the fixed variant's buffers. It stores *[]byte rather than
// []byte because converting a slice header to an interface allocates, which
// would reintroduce a (small) allocation on every Put.
var bufPool = sync.Pool{
	New: func() any {
		b := newBuf()
		return &b
	},
}

// problemWork is the handler as first written: a fresh buffer per request.
func problemWork(w http.ResponseWriter, r *http.Request) {
	buf := newBuf()
	for i := 0; i < len(buf); i++ {
		buf[i] = 1
	}
	respond(w, r)
}

// fixedWork does the same work as problemWork with a pooled buffer. The
// buffer is fully overwritten before use, so nothing from an earlier request
// can leak into a later one.
func fixedWork(w http.ResponseWriter, r *http.Request) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	for i := 0; i < len(buf); i++ {
		buf[i] = 1
	}
	respond(w, r)
}

// respond writes the body both variants share: "done, " and the request
// path without its leading slash.
func respond(w http.ResponseWriter, r *http.Request) {
	// Plain text, so a browser never interprets the echoed path as markup.
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "done, %v", strings.TrimPrefix(r.URL.Path, "/"))
}

// healthz answers readiness probes without touching the buffers, so probing
// a server does not add to the allocation profile being demonstrated.
func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

// Handler returns the demo server's handler for variant v: GET /work does
// the buffer work and answers "done, work"; GET /healthz answers "ok";
// GET /debug/gcstats answers the server's GCStats as JSON.
// It panics if v is not Problem or Fixed; use ParseVariant for user input.
func Handler(v Variant) http.Handler {
	return newMux(v, false)
}

func newMux(v Variant, withPprof bool) *http.ServeMux {
	mux := http.NewServeMux()
	switch v {
	case Problem:
		mux.HandleFunc("GET /work", problemWork)
	case Fixed:
		mux.HandleFunc("GET /work", fixedWork)
	default:
		panic(fmt.Sprintf("demo: unknown variant %q", v))
	}
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /debug/gcstats", gcStatsHandler)
	if withPprof {
		// Registered explicitly on this mux: importing net/http/pprof also
		// registers on http.DefaultServeMux, which this server never serves.
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// Serve listens on addr (DefaultAddr when empty), calls ready with the bound
// address once connections can be accepted, and serves variant v until ctx
// is done. It then shuts down gracefully, letting in-flight requests finish,
// and returns nil. It returns an error if v is unknown, the address cannot
// be bound, or serving or shutting down fails. ready may be nil.
func Serve(ctx context.Context, v Variant, addr string, ready func(net.Addr)) error {
	if _, err := ParseVariant(string(v)); err != nil {
		return err
	}
	return serve(ctx, newMux(v, false), addr, ready)
}

// ServeWithPprof is Serve with net/http/pprof mounted under /debug/pprof/,
// as the -pprof flag of ServeMain does.
func ServeWithPprof(ctx context.Context, v Variant, addr string, ready func(net.Addr)) error {
	return serve(ctx, newMux(v, true), addr, ready)
}

func serve(ctx context.Context, h http.Handler, addr string, ready func(net.Addr)) error {
	if addr == "" {
		addr = DefaultAddr
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("demo: listen: %w", err)
	}
	srv := &http.Server{
		Handler: h,
		// Guards against idle half-open connections; no WriteTimeout, since
		// /debug/pprof/profile legitimately streams for many seconds.
		ReadHeaderTimeout: 10 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	// The listener is already accepting into its backlog, so the address is
	// usable as soon as ready sees it.
	if ready != nil {
		ready(ln.Addr())
	}

	select {
	case err := <-errc:
		return fmt.Errorf("demo: serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		<-errc
		return fmt.Errorf("demo: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("demo: serve: %w", err)
	}
	return nil
}

// ServeMain runs a demo server as a program: args are its flags (without
// the program name), -variant problem|fixed, -addr and -pprof. Once the
// server accepts connections it prints exactly one line,
// "listening on http://HOST:PORT", to stdout, which is how a parent process
// learns the port. On SIGINT or SIGTERM it shuts down gracefully and returns
// 0; it returns 2 for bad flags and 1 for other failures, reported on
// stderr. It never calls os.Exit.
func ServeMain(args []string, stdout io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first signal, restore the default behaviour so a second
		// one kills a server whose shutdown is stuck.
		<-ctx.Done()
		stop()
	}()
	return serveMain(ctx, args, stdout, os.Stderr)
}

// serveMain is ServeMain with the context and stderr supplied by the
// caller, so tests can stop it without sending signals.
func serveMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gcdoctor demo server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	variant := fs.String("variant", string(Problem), "handler to serve: problem (new 10 MB buffer per request) or fixed (sync.Pool)")
	addr := fs.String("addr", DefaultAddr, "address to listen on")
	withPprof := fs.Bool("pprof", false, "also serve net/http/pprof under /debug/pprof/")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "demo server: unexpected arguments: %q\n", fs.Args())
		return 2
	}
	v, err := ParseVariant(*variant)
	if err != nil {
		fmt.Fprintf(stderr, "demo server: %v\n", err)
		return 2
	}
	err = serve(ctx, newMux(v, *withPprof), *addr, func(a net.Addr) {
		fmt.Fprintf(stdout, "listening on http://%s\n", a)
	})
	if err != nil {
		fmt.Fprintf(stderr, "demo server: %v\n", err)
		return 1
	}
	return 0
}

// SourceDir returns the directory of this package's source when it is on
// this machine (gcdoctor run from a clone, or built without -trimpath),
// else "".
func SourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	dir := filepath.Dir(file)
	if _, err := os.Stat(filepath.Join(dir, "server.go")); err != nil {
		return ""
	}
	return dir
}
