package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/heapprof"
)

func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

var sink [][]byte

func TestAttachLiveServer(t *testing.T) {
	srv := httptest.NewServer(pprofMux())
	defer srv.Close()
	for i := 0; i < 64; i++ {
		sink = append(sink, make([]byte, 64<<10))
	}
	for _, base := range []string{srv.URL, srv.URL + "/debug/pprof/", strings.TrimPrefix(srv.URL, "http://")} {
		dir := filepath.Join(t.TempDir(), "b")
		w, err := bundle.Create(dir)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Attach(context.Background(), AttachSpec{URL: base, Seconds: 1, Out: w})
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		// The profiles and trace, and the MemStats the heap profile in
		// text ends with, sampled over the window.
		for _, f := range []string{bundle.AllocsFile, bundle.HeapFile, bundle.GoroutineFile, bundle.TraceFile,
			"memstats-start.txt", "memstats-end.txt", bundle.LiveTimesFile} {
			if res.Files[f] == "" {
				t.Errorf("%s: no %s in %v", base, f, res.Files)
			}
		}
		if res.Live == nil || len(res.Live.Sources) != 1 || res.Live.Sources[0] != "memstats" || res.Live.WindowS < MinLiveWindow.Seconds() {
			t.Errorf("%s: live %+v", base, res.Live)
		}
		for _, name := range []string{bundle.AllocsFile, bundle.HeapFile} {
			f, err := os.Open(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			p, err := heapprof.Read(f, name)
			f.Close()
			if err != nil || p.TotalAllocBytes == 0 {
				t.Errorf("%s: %v (total %d)", name, err, p.TotalAllocBytes)
			}
		}
		b, err := bundle.Open(dir)
		if err != nil || b.Meta() == nil || len(b.Meta().Files) != len(res.Files) {
			t.Fatalf("bundle: %v", err)
		}
		// The trace header gives the version as major.minor.
		if want := strings.Join(strings.SplitN(runtime.Version(), ".", 3)[:2], "."); b.Meta().GoVersion != want {
			t.Errorf("go_version %q, want %q", b.Meta().GoVersion, want)
		}
	}
}

func TestAttachErrors(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>hello</html>"))
	}))
	defer html.Close()
	stall := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(stall)
	tests := []struct {
		url, want string
		client    *http.Client
	}{
		{notFound.URL, "404 Not Found: is net/http/pprof registered", nil},
		{html.URL, "not a net/http/pprof endpoint", nil},
		{slow.URL, "/debug/pprof/allocs: no answer within the client's timeout of 200ms", &http.Client{Timeout: 200 * time.Millisecond}},
		{"http://127.0.0.1:1", "connection refused", nil},
		{"ftp://example.com", "only http and https", nil},
	}
	for _, tt := range tests {
		w, err := bundle.Create(filepath.Join(t.TempDir(), "b"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Attach(context.Background(), AttachSpec{URL: tt.url, Out: w, Client: tt.client})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.url, err, tt.want)
		}
		if strings.Contains(tt.want, "not a net") && !errors.Is(err, errNotPprof) {
			t.Errorf("%s: error does not wrap errNotPprof", tt.url)
		}
	}
}

// fakePprof serves canned answers in place of net/http/pprof: handlers by
// the last element of the path, and 404 for the rest. It records the
// query of every trace request.
type fakePprof struct {
	handlers map[string]http.HandlerFunc
	mu       sync.Mutex
	traces   []string
}

func (f *fakePprof) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, "/debug/pprof/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	if name == "trace" {
		f.mu.Lock()
		f.traces = append(f.traces, r.URL.RawQuery)
		f.mu.Unlock()
	}
	h, found := f.handlers[name]
	if !found {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

// answer serves body as it is.
func answer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }
}

// gzipMagic starts every gzipped profile; it is all Attach checks.
const gzipMagic = "\x1f\x8b\x08\x00profile"

// profiles serves the three profiles Attach downloads.
func profiles() map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{"allocs": answer(gzipMagic), "heap": answer(gzipMagic), "goroutine": answer(gzipMagic)}
}

// newBundle creates an empty bundle in a temporary directory.
func newBundle(t *testing.T) (*bundle.Writer, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "b")
	w, err := bundle.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	return w, dir
}

// attachCtx bounds a test's Attach so that a hang fails the test.
func attachCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestAttachOldGo checks that the trace of a program older than Go 1.22,
// whose traces cannot be read, is skipped after a probe of a millisecond,
// with the reason in the result, and that the header of the real trace is
// checked too.
func TestAttachOldGo(t *testing.T) {
	tests := []struct {
		name         string
		probe, trace string // trace headers
		wantVersion  string
		skipped      bool
		traces       []string
	}{
		{"old", "go 1.21 trace\x00\x00\x00", "", "go1.21", true, []string{"seconds=0.001"}},
		{"older", "go 1.5 trace\x00\x00\x00\x00", "", "go1.5", true, []string{"seconds=0.001"}},
		{"new", "go 1.22 trace\x00\x00\x00", "go 1.22 trace\x00\x00\x00events", "go1.22", false, []string{"seconds=0.001", "seconds=3"}},
		// A probe that fails leaves the decision to the header of the
		// real trace.
		{"probe fails, old", "", "go 1.20 trace\x00\x00\x00events", "go1.20", true, []string{"seconds=0.001", "seconds=3"}},
		{"probe fails, new", "", "go 1.23 trace\x00\x00\x00events", "go1.23", false, []string{"seconds=0.001", "seconds=3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakePprof{handlers: profiles()}
			fake.handlers["trace"] = func(w http.ResponseWriter, r *http.Request) {
				body := tt.trace
				if r.FormValue("seconds") == "0.001" {
					body = tt.probe
				}
				if body == "" {
					http.Error(w, "probe failed", http.StatusInternalServerError)
					return
				}
				io.WriteString(w, body)
			}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			w, dir := newBundle(t)
			res, err := Attach(attachCtx(t), AttachSpec{URL: srv.URL, Seconds: 3, Out: w})
			if err != nil {
				t.Fatal(err)
			}
			if res.GoVersion != tt.wantVersion || (res.TraceSkipped != "") != tt.skipped {
				t.Errorf("GoVersion %q, TraceSkipped %q; want %q, skipped %v", res.GoVersion, res.TraceSkipped, tt.wantVersion, tt.skipped)
			}
			if tt.skipped && !strings.Contains(res.TraceSkipped, tt.wantVersion+",") {
				t.Errorf("TraceSkipped %q does not name %s", res.TraceSkipped, tt.wantVersion)
			}
			_, err = os.Stat(filepath.Join(dir, bundle.TraceFile))
			if _, listed := res.Files[bundle.TraceFile]; listed == tt.skipped || (err == nil) == tt.skipped {
				t.Errorf("trace listed %v, on disk %v; want %v", listed, err == nil, !tt.skipped)
			}
			if !slices.Equal(fake.traces, tt.traces) {
				t.Errorf("trace requests %q, want %q", fake.traces, tt.traces)
			}
			b, err := bundle.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if b.Meta() == nil || b.Meta().GoVersion != tt.wantVersion {
				t.Errorf("meta.json %+v, want go_version %s", b.Meta(), tt.wantVersion)
			}
		})
	}
}

func TestAttachSeconds(t *testing.T) {
	fake := &fakePprof{handlers: profiles()}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	for _, seconds := range []int{-1, MaxTraceSeconds + 1} {
		w, _ := newBundle(t)
		_, err := Attach(attachCtx(t), AttachSpec{URL: srv.URL, Seconds: seconds, Out: w})
		want := fmt.Sprintf("attach: a trace of %d s is out of range: from 0 (no trace) to 600 s", seconds)
		if err == nil || err.Error() != want {
			t.Errorf("Seconds %d: err %v, want %q", seconds, err, want)
		}
	}
	if len(fake.traces) != 0 {
		t.Errorf("trace requested despite a bad length: %q", fake.traces)
	}
}

// TestAttachEndless checks that an answer that never ends stops at the
// bound on a profile's size, and leaves no part of a profile behind.
func TestAttachEndless(t *testing.T) {
	fake := &fakePprof{handlers: map[string]http.HandlerFunc{
		"allocs": func(w http.ResponseWriter, r *http.Request) {
			buf := make([]byte, 1<<20)
			copy(buf, gzipMagic)
			for {
				if _, err := w.Write(buf); err != nil {
					return
				}
			}
		},
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	w, dir := newBundle(t)
	res, err := Attach(attachCtx(t), AttachSpec{URL: srv.URL, Out: w})
	want := "attach: GET " + srv.URL + "/debug/pprof/allocs: the answer is larger than the 64 MiB allowed"
	if err == nil || err.Error() != want || !errors.Is(err, errTooLarge) {
		t.Errorf("err %v, want %q", err, want)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 || res == nil || len(res.Files) != 0 {
		t.Errorf("bundle holds %v after a failed download", ents)
	}
}

func TestTraceLimit(t *testing.T) {
	tests := []struct {
		seconds int
		want    int64
	}{
		{1, 80 << 20},
		{5, 144 << 20},
		{28, 512 << 20},
		{MaxTraceSeconds, MaxTraceBytes},
	}
	for _, tt := range tests {
		if got := traceLimit(tt.seconds); got != tt.want {
			t.Errorf("traceLimit(%d) = %d, want %d", tt.seconds, got, tt.want)
		}
	}
}

// TestDownloadBounds checks the bounds of one download with small limits:
// on size, on time when the answer stalls, and the caller's cancellation.
func TestDownloadBounds(t *testing.T) {
	stall := make(chan struct{})
	defer close(stall)
	asked := make(chan struct{}, 1)
	srv := httptest.NewServer(&fakePprof{handlers: map[string]http.HandlerFunc{
		"big":  answer(gzipMagic + strings.Repeat("x", 2000)),
		"fits": answer(gzipMagic + strings.Repeat("x", 1000-len(gzipMagic))),
		"stall": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, gzipMagic)
			w.(http.Flusher).Flush()
			select {
			case <-stall:
			case <-r.Context().Done():
			}
		},
		"hang": func(w http.ResponseWriter, r *http.Request) {
			asked <- struct{}{}
			select {
			case <-stall:
			case <-r.Context().Done():
			}
		},
	}})
	defer srv.Close()
	tests := []struct {
		name, path string
		timeout    time.Duration
		cancel     bool // cancel the caller's context once the server is asked
		want       string
		target     error
	}{
		{"too large", "big", time.Minute, false, "the answer is larger than the 1000 B allowed", errTooLarge},
		{"fits", "fits", time.Minute, false, "", nil},
		{"stalled", "stall", 100 * time.Millisecond, false, "the answer did not finish within 100ms (11 B received)", context.DeadlineExceeded},
		{"interrupted", "hang", time.Minute, true, "interrupted", context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, dir := newBundle(t)
			ctx, cancel := context.WithCancel(attachCtx(t))
			defer cancel()
			if tt.cancel {
				go func() {
					select {
					case <-asked:
						cancel()
					case <-ctx.Done():
					}
				}()
			}
			u, _ := url.Parse(srv.URL + "/debug/pprof/" + tt.path)
			d := download{client: &http.Client{}, url: u, timeout: tt.timeout, limit: 1000}
			err := d.profile(ctx, w, bundle.HeapFile)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := "attach: GET " + u.String() + ": " + tt.want; err == nil || err.Error() != want || !errors.Is(err, tt.target) {
				t.Errorf("err %v, want %q wrapping %v", err, want, tt.target)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("bundle holds %v after a failed download", ents)
			}
		})
	}
}

// TestAttachRedacts checks that the password of the URL is sent to the
// server but appears in no message, result or meta.json.
func TestAttachRedacts(t *testing.T) {
	fake := &fakePprof{handlers: profiles()}
	authed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "admin" || p != "s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		fake.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(authed)
	defer srv.Close()
	withPassword := strings.Replace(srv.URL, "://", "://admin:s3cret@", 1)
	redacted := strings.Replace(srv.URL, "://", "://admin:xxxxx@", 1)

	w, dir := newBundle(t)
	res, err := Attach(attachCtx(t), AttachSpec{URL: withPassword, Out: w})
	if err != nil {
		t.Fatal(err)
	}
	if res.Base != redacted+"/debug/pprof/" {
		t.Errorf("Base %q, want %q", res.Base, redacted+"/debug/pprof/")
	}
	meta, err := os.ReadFile(filepath.Join(dir, bundle.MetaFile))
	if err != nil || bytes.Contains(meta, []byte("s3cret")) {
		t.Errorf("meta.json holds the password (%v):\n%s", err, meta)
	}

	errorsFor := []struct{ url, want string }{
		{strings.Replace(srv.URL, "://", "://admin:wrong@", 1), "attach: GET " + strings.Replace(srv.URL, "://", "://admin:xxxxx@", 1) + "/debug/pprof/allocs: 401 Unauthorized: \"unauthorized\""},
		{strings.TrimPrefix(withPassword, "http://") + "/nothing/", "attach: GET " + redacted + "/nothing/debug/pprof/allocs: 404 Not Found: is net/http/pprof registered on this server?"},
		{"http://admin:s3cret@host:port", `attach: "http://admin:xxxxx@host:port" is not a URL such as http://localhost:6060`},
		{"ftp://admin:s3cret@host", `attach: "ftp://admin:xxxxx@host": only http and https are supported`},
		{"http://admin:s3cret@127.0.0.1:1", "attach: GET http://admin:xxxxx@127.0.0.1:1/debug/pprof/allocs: dial tcp 127.0.0.1:1: connect: connection refused"},
	}
	for _, tt := range errorsFor {
		w, _ := newBundle(t)
		_, err := Attach(attachCtx(t), AttachSpec{URL: tt.url, Out: w})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: err %v, want %q", tt.url, err, tt.want)
		}
	}
}

func TestRedactURLs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://admin:s3cret@host/x", "http://admin:xxxxx@host/x"},
		{"http://admin@host/x", "http://admin@host/x"},
		{"http://host/x?u=a:b@c", "http://host/x?u=a:b@c"},
		{"-dsn=postgres://u:p@db/x -other=http://v:q@h", "-dsn=postgres://u:xxxxx@db/x -other=http://v:xxxxx@h"},
		{"http://a:b:c@d@host", "http://a:xxxxx@host"},
		{"no url here", "no url here"},
		{"://", "://"},
	}
	for _, tt := range tests {
		if got := redactURLs(tt.in); got != tt.want {
			t.Errorf("redactURLs(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// Where the text is one URL, the result is what net/http shows.
		if u, err := url.Parse(tt.in); err == nil && u.Host != "" && strings.Count(tt.in, "@") == 1 {
			if got := u.Redacted(); got != tt.want {
				t.Errorf("url.Redacted(%q) = %q, redactURLs gives %q", tt.in, got, tt.want)
			}
		}
	}
}

// TestAttachHostileText checks that text from the server reaches an error
// message escaped and bounded: terminal control sequences, carriage
// returns, bells and bidirectional controls become visible escapes.
func TestAttachHostileText(t *testing.T) {
	hostile := "oops \x1b[2J\x1b[31mred\u202eevil\r\x07\x9b" + strings.Repeat("A", 300)
	body := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, hostile)
	}))
	defer body.Close()
	status := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		io.WriteString(conn, "HTTP/1.1 503 \x1b]0;pwned\x07Busy\u202e\r\nContent-Length: 0\r\n\r\n")
	}))
	defer status.Close()
	notPprof := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "\x1b[2J<html>")
	}))
	defer notPprof.Close()
	quoted := `"oops \x1b[2J\x1b[31mred\u202eevil\r\a\x9b`
	tests := []struct{ url, want string }{
		// The page is quoted up to 200 bytes, escapes included.
		{body.URL, `500 Internal Server Error: ` + quoted + strings.Repeat("A", 200-len(quoted)-1) + `"...`},
		{status.URL, `503 \x1b]0;pwned\aBusy\u202e`},
		{notPprof.URL, `not a net/http/pprof endpoint (the answer starts "\x1b[2J<html>")`},
	}
	for _, tt := range tests {
		w, _ := newBundle(t)
		_, err := Attach(attachCtx(t), AttachSpec{URL: tt.url, Out: w})
		if err == nil {
			t.Fatalf("%s: no error", tt.url)
		}
		msg := err.Error()
		if !strings.HasSuffix(msg, "/debug/pprof/allocs: "+tt.want) {
			t.Errorf("%s: err\n%s\nwant it to end in\n%s", tt.url, msg, tt.want)
		}
		if i := strings.IndexFunc(msg, func(r rune) bool { return !strconv.IsPrint(r) }); i >= 0 || !utf8.ValidString(msg) {
			t.Errorf("%s: err %q holds a character that is not printable", tt.url, msg)
		}
	}
}

func TestQuoteBounded(t *testing.T) {
	tests := []struct{ in, want string }{
		{"short", `"short"`},
		{strings.Repeat("a", 198), `"` + strings.Repeat("a", 198) + `"`},
		{strings.Repeat("a", 199), `"` + strings.Repeat("a", 198) + `"...`},
		// Escapes count: 49 of them take 196 bytes, quotes included 198.
		{strings.Repeat("\x00", 300), `"` + strings.Repeat(`\x00`, 49) + `"...`},
		{strings.Repeat("\xff", 300), `"` + strings.Repeat(`\xff`, 49) + `"...`},
		{strings.Repeat("\u202e", 100), `"` + strings.Repeat(`\u202e`, 33) + `"...`},
		// A character is never cut in two.
		{strings.Repeat("é", 150), `"` + strings.Repeat("é", 99) + `"...`},
	}
	for _, tt := range tests {
		got := quoteBounded([]byte(tt.in))
		if got != tt.want {
			t.Errorf("quoteBounded(%.20q...) = %s, want %s", tt.in, got, tt.want)
		}
		if len(strings.TrimSuffix(got, "...")) > maxQuoted {
			t.Errorf("quoteBounded(%.20q...) is %d bytes long", tt.in, len(got))
		}
	}
}

// TestAttachLeaks checks that the goroutine-leak profile is saved when the
// program serves it, that its 404 (a program built without
// GOEXPERIMENT=goroutineleakprofile) is no error, and that any other
// failure is.
func TestAttachLeaks(t *testing.T) {
	tests := []struct {
		name    string
		leak    http.HandlerFunc // nil: 404
		saved   bool
		wantErr string
	}{
		{"served", answer(gzipMagic), true, ""},
		{"not built in", nil, false, ""},
		{"not a profile", answer("<html>"), false, "goroutineleak"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := profiles()
			if tt.leak != nil {
				h[bundle.GoroutineLeakPath] = tt.leak
			}
			srv := httptest.NewServer(&fakePprof{handlers: h})
			defer srv.Close()
			w, dir := newBundle(t)
			res, err := Attach(attachCtx(t), AttachSpec{URL: srv.URL, Out: w})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Attach: %v, want error %q", err, tt.wantErr)
			}
			_, statErr := os.Stat(filepath.Join(dir, bundle.GoroutineLeakFile))
			if saved := statErr == nil && res.Files[bundle.GoroutineLeakFile] != ""; saved != tt.saved {
				t.Errorf("goroutine-leak profile saved: %v, want %v (files %v)", saved, tt.saved, res.Files)
			}
		})
	}
}
