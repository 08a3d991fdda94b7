package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/gcdoctor/gcdoctor/bundle"
)

// AttachSpec says where a running program serves net/http/pprof and what to
// collect from it.
type AttachSpec struct {
	// URL is the program's base URL ("http://localhost:6060") or its
	// /debug/pprof/ index; both are accepted.
	URL string
	// Seconds is how long to record the execution trace; 0 skips the trace.
	Seconds int
	// Out receives the evidence; required.
	Out *bundle.Writer
	// Client is the HTTP client; nil uses one with sensible timeouts.
	Client *http.Client
	// ToolVersion is recorded in meta.json.
	ToolVersion string
	// Progress, when set, is told what is being fetched.
	Progress func(what string)
}

// AttachResult lists what Attach collected.
type AttachResult struct {
	Base  string            // the /debug/pprof/ base URL used
	Files map[string]string // bundle file name → what it holds
	Meta  *bundle.Meta
}

// errNotPprof marks a server that answers but is not net/http/pprof.
var errNotPprof = errors.New("not a net/http/pprof endpoint")

// Attach downloads the program's heap, allocs and goroutine profiles and,
// when Seconds > 0, an execution trace, into the bundle. Each request has
// its own deadline (the trace's is Seconds plus a margin), so a server that
// never answers cannot hang it. A 404 or a page that is not a profile is an
// error naming the URL.
func Attach(ctx context.Context, s AttachSpec) (*AttachResult, error) {
	if s.Out == nil {
		return nil, errors.New("attach: no bundle to write to")
	}
	base, err := pprofBase(s.URL)
	if err != nil {
		return nil, err
	}
	client := s.Client
	if client == nil {
		client = &http.Client{}
	}
	res := &AttachResult{Base: base, Files: map[string]string{}}
	start := time.Now()
	fetches := []struct {
		file, path, what string
		timeout          time.Duration
	}{
		{bundle.AllocsFile, "allocs", "allocation profile (every allocation since start)", 30 * time.Second},
		{bundle.HeapFile, "heap", "heap profile (live objects at the last GC)", 30 * time.Second},
		{bundle.GoroutineFile, "goroutine", "goroutine profile", 30 * time.Second},
	}
	if s.Seconds > 0 {
		fetches = append(fetches, struct {
			file, path, what string
			timeout          time.Duration
		}{bundle.TraceFile, fmt.Sprintf("trace?seconds=%d", s.Seconds), fmt.Sprintf("execution trace (%d s)", s.Seconds), time.Duration(s.Seconds)*time.Second + 30*time.Second})
	}
	for _, f := range fetches {
		if s.Progress != nil {
			s.Progress(f.what)
		}
		if err := fetch(ctx, client, base+f.path, f.timeout, s.Out, f.file); err != nil {
			return res, err
		}
		res.Files[f.file] = f.what
	}
	m := &bundle.Meta{
		SchemaVersion: bundle.SchemaVersion,
		Created:       time.Now().UTC(),
		ToolVersion:   s.ToolVersion,
		Start:         start.UTC(),
		DurationMS:    float64(time.Since(start).Milliseconds()),
		Files:         res.Files,
	}
	if _, ok := res.Files[bundle.TraceFile]; ok {
		m.GoVersion = traceGoVersion(s.Out.Path(bundle.TraceFile))
	}
	res.Meta = m
	return res, s.Out.WriteMeta(m)
}

// traceGoVersion reads the Go version from an execution trace's header,
// "go 1.23 trace": profiles do not record it, traces do. It returns "" when
// the header is not there.
func traceGoVersion(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	s := string(head[:n])
	if !strings.HasPrefix(s, "go 1.") {
		return ""
	}
	v, _, ok := strings.Cut(s[3:], " trace")
	if !ok {
		return ""
	}
	return "go" + v
}

// pprofBase turns what the user typed into the /debug/pprof/ base URL.
func pprofBase(raw string) (string, error) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("attach: %q is not a URL such as http://localhost:6060", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("attach: %s: only http and https are supported", raw)
	}
	p := strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(p, "/debug/pprof") {
		p += "/debug/pprof"
	}
	u.Path, u.RawQuery = p+"/", ""
	return u.String(), nil
}

// fetch downloads one profile into the bundle, checking that it is one.
func fetch(ctx context.Context, c *http.Client, u string, timeout time.Duration, out *bundle.Writer, name string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("attach: %s: no answer within %s", u, timeout)
		}
		return fmt.Errorf("attach: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("attach: %s: 404 Not Found: is net/http/pprof registered on this server?", u)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return fmt.Errorf("attach: %s: %s: %s", u, resp.Status, strings.TrimSpace(string(msg)))
	}
	// Profiles are gzip (1f 8b); a trace starts "go 1."; anything else,
	// typically an HTML page from a catch-all handler, is not pprof.
	head := make([]byte, 5)
	n, err := io.ReadFull(resp.Body, head)
	head = head[:n]
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("attach: %s: %v", u, err)
	}
	isGzip := bytes.HasPrefix(head, []byte{0x1f, 0x8b})
	isTrace := bytes.HasPrefix(head, []byte("go 1."))
	if (name == bundle.TraceFile && !isTrace) || (name != bundle.TraceFile && !isGzip) {
		return fmt.Errorf("attach: %s: %w (the answer starts %q)", u, errNotPprof, head)
	}
	f, err := out.Create(name)
	if err != nil {
		return err
	}
	if _, err := f.Write(head); err != nil {
		f.Close()
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("attach: %s: the answer did not finish within %s", u, timeout)
		}
		return fmt.Errorf("attach: %s: %v", u, err)
	}
	return f.Close()
}
