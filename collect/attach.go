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
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/internal/goversion"
)

// Bounds on what Attach asks for and accepts, so that a careless or hostile
// server can neither fill the disk nor keep Attach waiting for ever.
const (
	// MaxTraceSeconds is the longest execution trace Attach records.
	MaxTraceSeconds = 600
	// ProfileTimeout bounds each profile download, from the request to
	// the last byte of the answer; a trace has its length on top of it.
	ProfileTimeout = 30 * time.Second
	// MaxProfileBytes bounds each downloaded profile. Profiles of even
	// very large programs take a few MiB.
	MaxProfileBytes = 64 << 20
	// TraceBytesPerSecond is how much execution trace Attach accepts per
	// second recorded, beyond MaxProfileBytes for the first moments: a
	// busy program writes a few MiB a second.
	TraceBytesPerSecond = 16 << 20
	// MaxTraceBytes bounds the execution trace, however long.
	MaxTraceBytes = 512 << 20
	// MinTraceGoMinor is the oldest Go 1 minor release whose execution
	// traces golang.org/x/exp/trace reads; Attach does not record the
	// trace of an older program.
	MinTraceGoMinor = 22
)

// maxQuoted bounds, in bytes, the part of an error page that an error
// message quotes, escapes included.
const maxQuoted = 200

// traceProbe is the length of the trace Attach asks for to read the
// program's Go version from the trace header before recording the real
// one: net/http/pprof takes fractions of a second, and answers so short a
// trace at once, whereas a long trace of an idle program may send its
// header only at its end.
const traceProbe = "0.001"

// AttachSpec says where a running program serves net/http/pprof and what to
// collect from it.
type AttachSpec struct {
	// URL is the program's base URL ("http://localhost:6060") or its
	// /debug/pprof/ index; both are accepted. A password in it is sent but
	// never shown: messages and results carry the URL redacted, as
	// url.URL.Redacted does.
	URL string
	// Seconds is how long to record the execution trace, from 0 (no
	// trace) to MaxTraceSeconds.
	Seconds int
	// Out receives the evidence; required.
	Out *bundle.Writer
	// Client is the HTTP client; nil means a plain one. Attach bounds each
	// download in time and size whatever the client.
	Client *http.Client
	// ToolVersion is recorded in meta.json.
	ToolVersion string
	// Progress, when set, is told what is being fetched.
	Progress func(what string)
}

// AttachResult lists what Attach collected.
type AttachResult struct {
	// Base is the /debug/pprof/ base URL used, with any password
	// redacted.
	Base string
	// Files maps each bundle file name written to what it holds.
	Files map[string]string
	// GoVersion is the program's Go version as its trace header gives it
	// ("go1.21"), "" when no trace was asked for or the header was not
	// read.
	GoVersion string
	// TraceSkipped says why no execution trace was recorded although one
	// was asked for, "" otherwise: a sentence to show the user.
	TraceSkipped string
	// Meta is what meta.json holds; nil when Attach failed before writing
	// it.
	Meta *bundle.Meta
	// Live says what was sampled of the program's own GC figures over the
	// attach (see live.go), nil when it serves none.
	Live *LiveResult
	// sampling samples them until finish.
	sampling *liveSampling
}

// errNotPprof marks a server that answers but is not net/http/pprof.
var errNotPprof = errors.New("not a net/http/pprof endpoint")

// errNotFound marks a 404: the server serves no such page.
var errNotFound = errors.New("not found")

// errTooLarge marks an answer larger than the bound on its download.
var errTooLarge = errors.New("answer too large")

// errFetchTimeout is the cause of a download's own deadline, told apart
// from the caller's.
var errFetchTimeout = errors.New("download took too long")

// Attach downloads the program's heap, allocs and goroutine profiles and,
// when Seconds > 0, an execution trace, into the bundle. Each download has
// its own deadline (ProfileTimeout, plus Seconds for the trace) and its own
// bound on size (MaxProfileBytes; the trace's grows with Seconds up to
// MaxTraceBytes), so a server that stalls or never stops answering cannot
// hang Attach or fill the disk. A 404, a page that is not a profile, or an
// answer beyond its bound is an error naming the URL.
//
// Before the trace, Attach reads the program's Go version from the header
// of a trace of a millisecond; a program older than Go 1.22 writes traces
// that cannot be read, and its trace is skipped, with the reason in
// AttachResult.TraceSkipped. When a download fails after others succeeded,
// the result lists what was collected and meta.json describes it.
func Attach(ctx context.Context, s AttachSpec) (*AttachResult, error) {
	if s.Out == nil {
		return nil, errors.New("attach: no bundle to write to")
	}
	if s.Seconds < 0 || s.Seconds > MaxTraceSeconds {
		return nil, fmt.Errorf("attach: a trace of %d s is out of range: from 0 (no trace) to %d s", s.Seconds, MaxTraceSeconds)
	}
	base, err := pprofBase(s.URL)
	if err != nil {
		return nil, err
	}
	client := s.Client
	if client == nil {
		client = &http.Client{}
	}
	res := &AttachResult{Base: base.Redacted(), Files: map[string]string{}}
	start := time.Now()
	res.sampling = startLive(ctx, client, base, s.Seconds)
	fetches := []struct {
		file, path, what string
	}{
		{bundle.AllocsFile, "allocs", "allocation profile (every allocation since start)"},
		{bundle.HeapFile, "heap", "heap profile (live objects at the last GC)"},
		{bundle.GoroutineFile, "goroutine", "goroutine profile"},
	}
	for _, f := range fetches {
		if s.Progress != nil {
			s.Progress(f.what)
		}
		d := download{client: client, url: base.JoinPath(f.path), timeout: ProfileTimeout, limit: MaxProfileBytes}
		if err := d.profile(ctx, s.Out, f.file); err != nil {
			return res, finish(res, s, start, err)
		}
		res.Files[f.file] = f.what
	}
	if err := attachLeaks(ctx, client, base, s, res); err != nil {
		return res, finish(res, s, start, err)
	}
	if s.Seconds > 0 {
		if err := attachTrace(ctx, client, base, s, res); err != nil {
			return res, finish(res, s, start, err)
		}
	}
	return res, finish(res, s, start, nil)
}

// attachLeaks downloads the goroutine-leak profile that net/http/pprof
// serves in a program built with GOEXPERIMENT=goroutineleakprofile (Go
// 1.26). Programs built without it answer 404, which is no error: most
// are. Any other failure is.
func attachLeaks(ctx context.Context, client *http.Client, base *url.URL, s AttachSpec, res *AttachResult) error {
	if s.Progress != nil {
		s.Progress("goroutine-leak profile")
	}
	d := download{client: client, url: base.JoinPath(bundle.GoroutineLeakPath), timeout: ProfileTimeout, limit: MaxProfileBytes}
	err := d.profile(ctx, s.Out, bundle.GoroutineLeakFile)
	if errors.Is(err, errNotFound) {
		return nil
	}
	if err == nil {
		res.Files[bundle.GoroutineLeakFile] = "goroutine-leak profile (leaked goroutines, found by a collection run for it)"
	}
	return err
}

// finish writes meta.json for what res lists, when it lists anything, and
// returns err joined with any failure to write it.
func finish(res *AttachResult, s AttachSpec, start time.Time, err error) error {
	if res.sampling != nil {
		err = errors.Join(err, res.sampling.end(s.Out, res))
		res.sampling = nil
	}
	if len(res.Files) == 0 {
		return err
	}
	res.Meta = &bundle.Meta{
		SchemaVersion: bundle.SchemaVersion,
		Created:       time.Now().UTC(),
		ToolVersion:   s.ToolVersion,
		Start:         start.UTC(),
		DurationMS:    float64(time.Since(start).Milliseconds()),
		GoVersion:     res.GoVersion,
		Files:         res.Files,
	}
	return errors.Join(err, s.Out.WriteMeta(res.Meta))
}

// attachTrace records the execution trace into the bundle, unless the
// program's Go version, read first from a very short trace, shows that it
// could not be read; res then says why it was skipped.
func attachTrace(ctx context.Context, client *http.Client, base *url.URL, s AttachSpec, res *AttachResult) error {
	probe := download{client: client, url: traceURL(base, traceProbe), timeout: ProfileTimeout, limit: MaxProfileBytes}
	minor, err := probe.traceVersion(ctx)
	if ctx.Err() != nil {
		return err
	}
	// A failure of the probe is left to the real request, whose error
	// names the URL the user would try, and whose header is checked too.
	if err == nil {
		res.GoVersion = fmt.Sprintf("go1.%d", minor)
		if skip := traceSkipReason(minor); skip != "" {
			res.TraceSkipped = skip
			return nil
		}
	}
	what := fmt.Sprintf("execution trace (%d s)", s.Seconds)
	if s.Progress != nil {
		s.Progress(what)
	}
	d := download{
		client:  client,
		url:     traceURL(base, strconv.Itoa(s.Seconds)),
		timeout: time.Duration(s.Seconds)*time.Second + ProfileTimeout,
		limit:   traceLimit(s.Seconds),
	}
	minor, err = d.trace(ctx, s.Out)
	if minor > 0 {
		res.GoVersion = fmt.Sprintf("go1.%d", minor)
	}
	if errors.Is(err, errOldTrace) {
		res.TraceSkipped = traceSkipReason(minor)
		return nil
	}
	if err != nil {
		return err
	}
	res.Files[bundle.TraceFile] = what
	return nil
}

// traceURL is the trace endpoint under base for a trace of seconds.
func traceURL(base *url.URL, seconds string) *url.URL {
	u := base.JoinPath("trace")
	u.RawQuery = "seconds=" + seconds
	return u
}

// traceLimit is the bound on the size of a trace of seconds.
func traceLimit(seconds int) int64 {
	return min(MaxProfileBytes+int64(seconds)*TraceBytesPerSecond, MaxTraceBytes)
}

// traceSkipReason says why the trace of a program built by Go 1.minor is
// not recorded, "" when it is.
func traceSkipReason(minor int) string {
	if minor >= MinTraceGoMinor {
		return ""
	}
	return fmt.Sprintf("no execution trace: the program runs go1.%d, and traces of programs older than go1.%d cannot be read", minor, MinTraceGoMinor)
}

// errOldTrace marks a trace from a Go release whose traces cannot be read.
var errOldTrace = errors.New("trace format too old")

// traceHeaderLen is the length of an execution trace's header, "go 1.23
// trace" padded with zero bytes.
const traceHeaderLen = 16

// traceMinor reads the Go minor release from an execution trace header,
// "go 1.23 trace\x00\x00\x00"; ok is false when head is not one.
func traceMinor(head []byte) (minor int, ok bool) {
	s, found := bytes.CutPrefix(head, []byte("go "))
	if !found {
		return 0, false
	}
	v, _, found := bytes.Cut(s, []byte(" trace"))
	if !found {
		return 0, false
	}
	minor = goversion.Minor(string(v))
	return minor, minor > 0
}

// pprofBase turns what the user typed into the /debug/pprof/ base URL.
func pprofBase(raw string) (*url.URL, error) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("attach: %s is not a URL such as http://localhost:6060", quote(redactURLs(raw)))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("attach: %s: only http and https are supported", quote(u.Redacted()))
	}
	p := strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(p, "/debug/pprof") {
		p += "/debug/pprof"
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = p+"/", "", "", ""
	return u, nil
}

// download is one GET with its deadline and its bound on size.
type download struct {
	client  *http.Client
	url     *url.URL
	timeout time.Duration
	limit   int64
}

// fetchError is a failed download. Its message names the URL with any
// password redacted and holds no text from the server that could act on a
// terminal; it wraps the cause for errors.Is.
type fetchError struct {
	url string
	msg string
	err error
}

func (e *fetchError) Error() string { return "attach: GET " + e.url + ": " + e.msg }
func (e *fetchError) Unwrap() error { return e.err }

// fail returns the error for a download of d that failed with msg,
// wrapping err.
func (d *download) fail(err error, format string, args ...any) error {
	return &fetchError{url: d.url.Redacted(), msg: fmt.Sprintf(format, args...), err: err}
}

// reply is the successful answer to a download.
type reply struct {
	body io.ReadCloser
	// ctx is the request's context, under the download's deadline: the
	// body is read under it, and its cause tells which deadline passed.
	ctx    context.Context
	cancel context.CancelFunc
}

// close releases the answer.
func (r *reply) close() {
	r.body.Close()
	r.cancel()
}

// get sends the request and checks the answer's status. The caller closes
// the reply.
func (d *download) get(ctx context.Context) (*reply, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, d.timeout, errFetchTimeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.url.String(), nil)
	if err != nil {
		cancel()
		return nil, d.fail(err, "%s", escape(err.Error()))
	}
	resp, err := d.client.Do(req)
	if err != nil {
		err = d.ioError(ctx, err, "no answer", 0)
		cancel()
		return nil, err
	}
	r := &reply{body: resp.Body, ctx: ctx, cancel: cancel}
	if resp.StatusCode == http.StatusOK {
		return r, nil
	}
	defer r.close()
	status := escape(resp.Status)
	if resp.StatusCode == http.StatusNotFound {
		return nil, d.fail(errNotFound, "%s: is net/http/pprof registered on this server?", status)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxQuoted+1))
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, d.fail(nil, "%s", status)
	}
	return nil, d.fail(nil, "%s: %s", status, quoteBounded(body))
}

// ioError turns the failure of a request, or of reading its answer after
// n bytes, into a message that says what happened in the user's terms:
// which deadline passed, or that the caller gave up.
func (d *download) ioError(ctx context.Context, err error, what string, n int64) error {
	received := ""
	if n > 0 {
		received = fmt.Sprintf(" (%s received)", byteSize(n))
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errFetchTimeout):
		return d.fail(context.DeadlineExceeded, "%s within %s%s", what, d.timeout, received)
	case errors.Is(cause, context.Canceled):
		return d.fail(context.Canceled, "interrupted%s", received)
	case cause != nil:
		return d.fail(cause, "%s before the caller's deadline%s", what, received)
	}
	var te interface{ Timeout() bool }
	if d.client.Timeout > 0 && errors.As(err, &te) && te.Timeout() {
		return d.fail(context.DeadlineExceeded, "%s within the client's timeout of %s%s", what, d.client.Timeout, received)
	}
	// The URL a url.Error holds is already in the message.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return d.fail(err, "%s%s", escape(err.Error()), received)
}

// copyBody copies the rest of the answer to w, failing once more than
// d.limit bytes arrive in all, done of them already, and returns how many
// have arrived.
func (d *download) copyBody(r *reply, w io.Writer, done int64) (int64, error) {
	n, err := io.Copy(w, io.LimitReader(r.body, d.limit-done+1))
	done += n
	if err == nil && done > d.limit {
		return done, d.fail(errTooLarge, "the answer is larger than the %s allowed", byteSize(d.limit))
	}
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			// A failure to write the file is not the server's doing.
			return done, err
		}
		return done, d.ioError(r.ctx, err, "the answer did not finish", done)
	}
	return done, nil
}

// profile downloads a gzipped pprof profile into the bundle file name.
// When it fails, the file is removed: a part of a profile cannot be read.
func (d *download) profile(ctx context.Context, out *bundle.Writer, name string) error {
	r, err := d.get(ctx)
	if err != nil {
		return err
	}
	defer r.close()
	head, err := d.head(r, 2)
	if err != nil {
		return err
	}
	if !bytes.Equal(head, []byte{0x1f, 0x8b}) {
		return d.notPprof(head, r.body)
	}
	return d.save(r, out, name, head)
}

// trace downloads an execution trace into the bundle. When its header shows
// a Go release older than MinTraceGoMinor, it stops at once and returns
// errOldTrace. It returns the Go minor release from the header, 0 when it
// did not read one.
func (d *download) trace(ctx context.Context, out *bundle.Writer) (int, error) {
	r, err := d.get(ctx)
	if err != nil {
		return 0, err
	}
	defer r.close()
	head, err := d.head(r, traceHeaderLen)
	if err != nil {
		return 0, err
	}
	minor, ok := traceMinor(head)
	if !ok {
		return 0, d.notPprof(head, r.body)
	}
	if minor < MinTraceGoMinor {
		return minor, errOldTrace
	}
	return minor, d.save(r, out, bundle.TraceFile, head)
}

// traceVersion reads the Go minor release from the header of the trace at
// d.url and the rest of the answer, so that the program has stopped
// tracing, and can start again, by the time it returns.
func (d *download) traceVersion(ctx context.Context) (int, error) {
	r, err := d.get(ctx)
	if err != nil {
		return 0, err
	}
	defer r.close()
	head, err := d.head(r, traceHeaderLen)
	if err != nil {
		return 0, err
	}
	minor, ok := traceMinor(head)
	if !ok {
		return 0, d.notPprof(head, r.body)
	}
	if _, err := d.copyBody(r, io.Discard, int64(len(head))); err != nil {
		return 0, err
	}
	return minor, nil
}

// head reads the first n bytes of the answer, fewer if it is shorter.
func (d *download) head(r *reply, n int) ([]byte, error) {
	head := make([]byte, n)
	got, err := io.ReadFull(r.body, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, d.ioError(r.ctx, err, "the answer did not finish", int64(got))
	}
	return head[:got], nil
}

// notPprof is the error for an answer that starts with head and is not
// what net/http/pprof serves, typically an HTML page from a catch-all
// handler; it quotes the start of the answer.
func (d *download) notPprof(head []byte, body io.Reader) error {
	more := make([]byte, 32)
	n, _ := io.ReadFull(body, more)
	start := append(head, more[:n]...)
	return d.fail(errNotPprof, "%v (the answer starts %s)", errNotPprof, quote(string(start)))
}

// save writes head and the rest of the answer to the bundle file name, and
// removes the file when the download fails.
func (d *download) save(r *reply, out *bundle.Writer, name string, head []byte) error {
	f, err := out.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(head)
	if err == nil {
		_, err = d.copyBody(r, f, int64(len(head)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// byteSize formats n bytes for a message: "64 MiB", "1.5 KiB", "12 B".
func byteSize(n int64) string {
	if n < 1<<10 {
		return fmt.Sprintf("%d B", n)
	}
	v, unit := float64(n)/(1<<10), "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if v < 1<<10 {
			break
		}
		v, unit = v/(1<<10), u
	}
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + unit
}

// quote returns s as a Go string literal, so that text from a server or a
// user reaches the terminal as visible escapes: control characters such as
// ESC, CR and BEL, bidirectional controls such as U+202E, and invalid UTF-8.
func quote(s string) string {
	return strconv.Quote(s)
}

// escape is quote without the quotation marks, for text that is usually
// plain, such as a status line or a system error.
func escape(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// quoteBounded quotes the longest start of b whose quoted form, escapes
// included, fits in maxQuoted bytes, and says when it left the rest out.
func quoteBounded(b []byte) string {
	if q := quote(string(b)); len(q) <= maxQuoted {
		return q
	}
	best := `""`
	for i := 0; i < len(b); {
		_, size := utf8.DecodeRune(b[i:])
		q := quote(string(b[:i+size]))
		if len(q) > maxQuoted {
			break
		}
		best, i = q, i+size
	}
	return best + "..."
}

// redactURLs replaces the password of every URL in s with "xxxxx", as
// url.URL.Redacted does, leaving the rest of s as it is. It works on text
// rather than on a parsed URL so that it also covers a URL that does not
// parse and one inside an argument such as -dsn=postgres://u:p@host/db.
func redactURLs(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexAny(s, "/?# \t\n")
		if end < 0 {
			end = len(s)
		}
		authority := s[:end]
		at := strings.LastIndex(authority, "@")
		if at < 0 {
			continue
		}
		user, _, hasPassword := strings.Cut(authority[:at], ":")
		if !hasPassword {
			continue
		}
		b.WriteString(user + ":xxxxx")
		s = s[at:]
	}
}

// redactArgs returns a copy of args with the password of every URL in them
// redacted, for records that may be shared, such as meta.json.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = redactURLs(a)
	}
	return out
}

// IsURL reports whether arg names a running program to attach to rather
// than a file: a URL with a scheme, or host:port (with a path or not), and
// nothing of that name on disk.
func IsURL(arg string) bool {
	if _, err := os.Stat(arg); err == nil {
		return false
	}
	if strings.Contains(arg, "://") {
		return true
	}
	host, port, ok := strings.Cut(strings.SplitN(arg, "/", 2)[0], ":")
	if !ok || port == "" {
		return false
	}
	for _, c := range port {
		if c < '0' || c > '9' {
			return false
		}
	}
	return host == "" || !strings.ContainsAny(host, `\`)
}
