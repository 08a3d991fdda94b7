package collect

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

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
		if len(res.Files) != 4 {
			t.Errorf("%s: files %v", base, res.Files)
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
		if err != nil || b.Meta() == nil || len(b.Meta().Files) != 4 {
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
		{slow.URL, "Client.Timeout", &http.Client{Timeout: 200 * time.Millisecond}},
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
