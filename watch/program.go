package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/procfs"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/terminal"
	"github.com/gcdoctor/gcdoctor/live"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// Bounds on what a watched program's output may take.
const (
	// maxLine is the longest line read whole; the rest of a longer one
	// is skipped (a gctrace line is under 200 bytes).
	maxLine = 64 << 10
	// maxPending bounds the cycles read and not yet polled: a program
	// that collects faster than this per interval loses the oldest.
	maxPending = 100000
	// maxLogBytes bounds the standard error a recording keeps.
	maxLogBytes = 256 << 20
	// stopGrace is how long a program has to end after SIGINT before it
	// is killed.
	stopGrace = 5 * time.Second
)

// programSource watches a program it starts with GODEBUG=gctrace=1.
type programSource struct {
	cmd     *exec.Cmd
	args    []string
	figures cycleFigures
	started time.Time
	last    time.Time

	mu       sync.Mutex
	pending  []gctrace.Cycle
	dropped  int
	output   string // the program's last line of its own output, escaped
	ended    bool
	exitErr  error
	log      *bytes.Buffer // standard error as printed, for a recording
	logLimit bool

	// history are the cycles of the last polls, oldest first; lastCycle
	// the last cycle polled.
	history   []polled
	lastCycle *gctrace.Cycle
	done      chan struct{}
	cancel    context.CancelFunc
	stopped   bool
	polls     int
}

// Close stops the program if it still runs (SIGINT, then SIGKILL after
// stopGrace) and waits for it.
func (p *programSource) Close() error {
	p.mu.Lock()
	p.stopped = !p.ended
	p.mu.Unlock()
	p.cancel()
	select {
	case <-p.done:
		return nil
	case <-time.After(2 * stopGrace):
		return fmt.Errorf("%s did not end %s after it was killed", p.args[0], 2*stopGrace)
	}
}

// NewProgram starts args[0] with args[1:] and GODEBUG=gctrace=1 added to
// its environment, and watches the cycles it prints on standard error. Its
// standard input is not connected; its output is read, not shown, except
// for its last line. Cancelling ctx stops it: SIGINT, then SIGKILL after
// a grace period. Its standard error is kept for Record only when record
// is set.
func NewProgram(ctx context.Context, args []string, record bool) (Source, error) {
	if len(args) == 0 {
		return nil, errors.New("no program to run")
	}
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = gctraceEnv(os.Environ())
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = stopGrace
	p := &programSource{cmd: cmd, args: args, figures: settingsOf(cmd.Env), logLimit: !record, log: new(bytes.Buffer), done: make(chan struct{}), cancel: cancel}
	stdout, stderr := &lineWriter{p: p}, &lineWriter{p: p, stderr: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("start %s: %v", args[0], err)
	}
	p.started = time.Now()
	p.last = p.started
	go func() {
		err := cmd.Wait()
		stdout.flush()
		stderr.flush()
		p.mu.Lock()
		p.ended, p.exitErr = true, err
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// gctraceEnv adds gctrace=1 to GODEBUG, keeping what the user set.
func gctraceEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	godebug := "gctrace=1"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			if v != "" && !strings.Contains(v, "gctrace=") {
				godebug = v + ",gctrace=1"
			} else if v != "" {
				godebug = v
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GODEBUG="+godebug)
}

// settingsOf reads GOGC and GOMEMLIMIT from the program's environment.
func settingsOf(env []string) cycleFigures {
	f := cycleFigures{gogc: 100, limit: math.Inf(1), rss: math.NaN()}
	for _, kv := range env {
		switch k, v, _ := strings.Cut(kv, "="); k {
		case "GOGC":
			if strings.EqualFold(v, "off") {
				f.gogc = -1
			} else if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				f.gogc = n
			}
		case "GOMEMLIMIT":
			if b, err := pacer.ParseSize(v); err == nil && b > 0 {
				f.limit = float64(b)
			}
		}
	}
	return f
}

// lineWriter cuts a program's output into lines for note: the runtime's
// cycle lines on standard error become cycles; the rest is the program's
// own output. A line longer than maxLine is cut there.
type lineWriter struct {
	p      *programSource
	stderr bool
	buf    []byte
	skip   bool // the rest of an overlong line is being skipped
}

func (w *lineWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if !w.skip {
				w.buf = append(w.buf, b...)
				if len(w.buf) > maxLine {
					w.p.note(w.buf[:maxLine], w.stderr)
					w.buf, w.skip = w.buf[:0], true
				}
			}
			break
		}
		if !w.skip {
			w.buf = append(w.buf, b[:i+1]...)
			w.p.note(w.buf, w.stderr)
		}
		w.buf, w.skip, b = w.buf[:0], false, b[i+1:]
	}
	return n, nil
}

// flush takes the last line, which ended without a line end.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 && !w.skip {
		w.p.note(w.buf, w.stderr)
	}
	w.buf = nil
}

func (p *programSource) note(line []byte, stderr bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if stderr && !p.logLimit {
		if p.log.Len()+len(line) > maxLogBytes {
			p.logLimit = true
		} else {
			p.log.Write(line)
		}
	}
	text := bytes.TrimRight(line, "\r\n")
	var c gctrace.Cycle
	if stderr && gctrace.ClassifyLine(text, &c) == gctrace.KindCycle {
		if len(p.pending) >= maxPending {
			p.pending, p.dropped = p.pending[1:], p.dropped+1
		}
		p.pending = append(p.pending, c)
		return
	}
	if !stderr || !gctrace.IsTrace(gctrace.ClassifyLine(text, nil)) {
		if s := strings.TrimSpace(string(text)); s != "" {
			p.output = terminal.Escape(s)
		}
	}
}

func (p *programSource) Name() string { return terminal.Escape(strings.Join(p.args, " ")) }

func (p *programSource) Sources() []string { return []string{"gctrace"} }

func (p *programSource) Poll(ctx context.Context, span int) (interval, recent *live.KPIs, err error) {
	now := time.Now()
	p.mu.Lock()
	batch, ended := p.pending, p.ended
	p.pending = nil
	p.mu.Unlock()
	if ended && len(batch) == 0 {
		return nil, nil, ErrEnded
	}
	windowS := now.Sub(p.last).Seconds()
	if p.polls++; p.polls == 1 || windowS <= 0 {
		// The baseline: the cycles so far count in the next interval.
		p.mu.Lock()
		p.pending = append(batch, p.pending...)
		p.mu.Unlock()
		return nil, nil, nil
	}
	f := p.figures
	if proc, err := procfs.NewProc(p.cmd.Process.Pid); err == nil {
		if st, err := proc.Stat(); err == nil {
			f.rss = float64(st.ResidentMemory())
		}
	}
	interval = kpisOf(batch, p.lastCycle, windowS, f)
	p.history = append(p.history, polled{from: p.last, before: p.lastCycle, cycles: batch})
	if n := len(p.history) - span; n > 0 {
		p.history = p.history[n:]
	}
	if len(batch) > 0 {
		p.lastCycle = &batch[len(batch)-1]
	}
	p.last = now
	var all []gctrace.Cycle
	for _, h := range p.history {
		all = append(all, h.cycles...)
	}
	recent = kpisOf(all, p.history[0].before, now.Sub(p.history[0].from).Seconds(), f)
	return interval, recent, nil
}

// polled are the cycles one Poll took: those that ended after from, and
// the cycle before them.
type polled struct {
	from   time.Time
	before *gctrace.Cycle
	cycles []gctrace.Cycle
}

// Output returns the program's last line of its own output, escaped for a
// terminal, and whether it has ended and how.
func (p *programSource) Output() (last string, ended bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.output, p.ended, p.exitErr
}

// Record writes the program's standard error, its gctrace lines among it,
// as a bundle's gctrace.log, with its command and exit status: what
// gcdoctor run writes, less the files only run collects.
func (p *programSource) Record(out *bundle.Writer, meta *bundle.Meta) error {
	p.mu.Lock()
	log, ended, exitErr, limited, stopped := p.log.Bytes(), p.ended, p.exitErr, p.logLimit, p.stopped
	p.mu.Unlock()
	f, err := out.Create(bundle.GCTraceFile)
	if err != nil {
		return err
	}
	_, err = f.Write(log)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	meta.Files[bundle.GCTraceFile] = "the program's standard error, with its GODEBUG=gctrace=1 lines"
	if limited && len(log) > 0 {
		meta.Files[bundle.GCTraceFile] += fmt.Sprintf(" (its first %d MiB)", maxLogBytes>>20)
	}
	meta.Command = p.args
	meta.Start = p.started.UTC()
	meta.DurationMS = float64(time.Since(p.started).Milliseconds())
	for _, kv := range p.cmd.Env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GOGC":
			meta.GOGC = v
		case "GOMEMLIMIT":
			meta.GOMEMLIMIT = v
		case "GOMAXPROCS":
			meta.GOMAXPROCS = v
		case "GODEBUG":
			meta.GODEBUG = v
		}
	}
	meta.Stopped = stopped
	if !ended {
		return nil
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(exitErr, &ee) {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	}
	meta.ExitCode = &code
	return nil
}
