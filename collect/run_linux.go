package collect

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"

	"github.com/gcdoctor/gcdoctor/bundle"
)

// forwardedSignals are the signals Spec.Signals forwards: those a user
// sends to stop or inspect a program from its terminal.
var forwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// Run runs the program described by s until it exits and returns what was
// gathered. Cancelling ctx sends the program SIGTERM, then SIGKILL after
// s.Grace. An exit with a non-zero status, or by a signal, is a result, not
// an error: such runs are often exactly the ones worth diagnosing. Run
// returns an error when s is invalid or the program cannot be started, and
// a non-nil Result together with an error when the program ran but its
// evidence could not be saved.
//
// The program is killed if the calling process dies first (the program
// itself: processes it started live on unless they ask the same of it, as
// "go run" does not). While Run runs,
// SIGPIPE does not kill the calling process: a write to a standard output
// or error whose reader has gone fails instead, that writer stops
// receiving the program's output, and the run goes on to its end.
func Run(ctx context.Context, s Spec) (*Result, error) {
	// Without this, "gcdoctor run -- prog | head -1" would be killed by
	// SIGPIPE at the next line of output it passes on, before gathering
	// anything; with SIGPIPE caught, the write reports EPIPE to
	// passWriter.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	var sigs chan os.Signal
	if s.Signals {
		sigs = make(chan os.Signal, len(forwardedSignals))
		signal.Notify(sigs, forwardedSignals...)
		defer signal.Stop(sigs)
	}
	return run(ctx, s, sigs)
}

// run is Run with the forwarded signals coming from sigs, so that tests can
// deliver them without signalling the test process.
func run(ctx context.Context, s Spec, sigs <-chan os.Signal) (*Result, error) {
	if s.Path == "" {
		return nil, errors.New("run: no command given")
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	path, err := exec.LookPath(s.Path)
	if err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			err = unwrapPath(ee.Err)
		}
		return nil, fmt.Errorf("run %s: %w", s.Path, err)
	}
	if path, err = filepath.Abs(path); err != nil {
		return nil, fmt.Errorf("run %s: %w", s.Path, err)
	}
	if s.Dir != "" {
		// os.StartProcess checks the directory only when there are no
		// SysProcAttr; the child's failure to enter it would otherwise
		// be reported as a missing program.
		fi, err := os.Stat(s.Dir)
		if err == nil && !fi.IsDir() {
			err = &fs.PathError{Op: "chdir", Path: s.Dir, Err: syscall.ENOTDIR}
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				pe.Op = "chdir"
			}
			return nil, fmt.Errorf("run %s: %w", s.Path, err)
		}
	}
	// Read before starting: the file may be replaced while the program
	// runs, and the evidence must describe what actually ran.
	goVersion := ""
	if info, err := buildinfo.ReadFile(path); err == nil {
		goVersion = info.GoVersion
	}
	every := orDefault(s.SampleEvery, DefaultSampleEvery)
	grace := orDefault(s.Grace, DefaultGrace)

	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	env = withGCTrace(env)

	stdin := s.Stdin
	if s.Signals && isTerminal(stdin) {
		stdin = nil
	}

	var (
		trace *os.File
		temp  *tempFile
	)
	if s.Out != nil {
		trace, err = s.Out.Create(bundle.GCTraceFile)
	} else if temp, err = newTempFile("gcdoctor-gctrace-*.log"); err == nil {
		trace = temp.f
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", s.Path, err)
	}
	stderr := &passWriter{w: s.Stderr, file: trace}
	cmd := &exec.Cmd{
		Path:   path,
		Args:   append([]string{s.Path}, s.Args...),
		Env:    env,
		Dir:    s.Dir,
		Stdin:  stdin,
		Stderr: stderr,
		// Without a bound, a background process started by the program
		// and holding its stderr open would keep Run waiting after the
		// program itself has exited.
		WaitDelay: grace,
	}
	if s.Stdout != nil {
		cmd.Stdout = &passWriter{w: s.Stdout}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: s.Signals,
		// A program left running after gcdoctor dies would run on
		// unobserved, its output going nowhere.
		Pdeathsig: syscall.SIGKILL,
	}

	start := time.Now()
	started := make(chan error, 1)
	exited := make(chan struct{})
	go startLocked(cmd, started, exited)
	if err := <-started; err != nil {
		if temp != nil {
			temp.remove()
		} else {
			trace.Close()
			os.Remove(trace.Name())
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Op == "fork/exec" {
			err = pe.Err
		}
		return nil, fmt.Errorf("run %s: %w", s.Path, err)
	}
	c := &child{pid: cmd.Process.Pid, proc: cmd.Process, group: s.Signals}
	memLimit, cpuLimit := cgroupLimits(c.pid)
	samples := sampleRSS(c.pid, start, every, MaxRSSSamples)
	host := sampleHost(c.pid, start, every, MaxRSSSamples)
	supervised := make(chan bool, 1)
	go func() {
		supervised <- c.supervise(ctx, sigs, exited, grace)
	}()

	<-exited
	duration := time.Since(start)
	killed := <-supervised
	rss, every := samples.stop()
	hostSamples := host.stop()
	waitErr := cmd.Wait()

	res := &Result{
		Start:       start,
		Duration:    duration,
		Killed:      killed,
		RSS:         rss,
		Host:        hostSamples,
		CPU:         -1,
		SampleEvery: every,
		GCTracePath: trace.Name(),
		GoVersion:   goVersion,
		temp:        temp,
	}
	if temp != nil {
		res.GCTracePath = temp.path
	}
	var exitCode *int
	if ps := cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
			if ws.Signaled() {
				res.ExitCode = 128 + int(ws.Signal())
				res.Signaled = true
			} else {
				res.ExitCode = ws.ExitStatus()
			}
			code := res.ExitCode
			exitCode = &code
		}
		res.PeakRSS = peakRSS(rss, ps)
		res.CPU = ps.UserTime() + ps.SystemTime()
	}
	res.Meta = &bundle.Meta{
		SchemaVersion:          bundle.SchemaVersion,
		ToolVersion:            s.ToolVersion,
		Command:                redactArgs(cmd.Args),
		ExitCode:               exitCode,
		Start:                  start.Round(0),
		DurationMS:             float64(duration) / float64(time.Millisecond),
		GoVersion:              goVersion,
		GOGC:                   lookupEnv(env, "GOGC"),
		GOMEMLIMIT:             lookupEnv(env, "GOMEMLIMIT"),
		GOMAXPROCS:             lookupEnv(env, "GOMAXPROCS"),
		GODEBUG:                lookupEnv(env, "GODEBUG"),
		NumCPU:                 runtime.NumCPU(),
		CgroupMemoryLimitBytes: memLimit,
		CgroupCPULimit:         cpuLimit,
		PeakRSSBytes:           res.PeakRSS,
		Files:                  map[string]string{},
		Stopped:                c.stopped,
		Host:                   bundle.SummarizeHost(hostSamples),
	}

	// A non-zero exit is reported through ExitCode; what remains are
	// failures to move the program's input or output.
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) || errors.Is(waitErr, exec.ErrWaitDelay) {
		waitErr = nil
	}
	err = errors.Join(waitErr, stderr.fileErr)
	if temp == nil {
		// A temporary file stays open until Cleanup: it may have no
		// name left to reopen it by.
		err = errors.Join(err, trace.Close())
	}
	if s.Out != nil {
		// Whatever can still be saved is, even after an error: a partial
		// gctrace.log with its meta.json is still worth analysing.
		res.Meta.Files[bundle.GCTraceFile] = "standard error of the program, with its GODEBUG=gctrace=1 lines"
		rssErr := s.Out.WriteRSS(rss)
		if rssErr == nil {
			res.Meta.Files[bundle.RSSFile] = fmt.Sprintf("resident set size of the program in bytes, sampled every %v", every)
		}
		hostErr := writeHost(s.Out, res.Meta, hostSamples)
		res.Meta.Created = time.Now().Round(0)
		err = errors.Join(err, rssErr, hostErr, s.Out.WriteMeta(res.Meta))
	}
	if err != nil {
		return res, fmt.Errorf("run %s: %w", s.Path, err)
	}
	return res, nil
}

// orDefault returns d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// startLocked starts cmd and then waits, without reaping it, for it to
// exit, all on one locked thread. It reports the outcome of the start on
// started, and closes exited once the program has exited.
//
// The kernel sends Pdeathsig when the thread that started the program ends,
// not the process, and Go ends a thread when a goroutine locked to it
// returns: a program started from an ordinary goroutine would be killed
// whenever that thread happened to end. Holding the thread until the
// program has exited keeps the signal for the death of the process.
//
// Not reaping lets the process ID stay the program's while signals are
// still being sent to it or its RSS sampled.
func startLocked(cmd *exec.Cmd, started chan<- error, exited chan<- struct{}) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	err := cmd.Start()
	started <- err
	if err != nil {
		return
	}
	waitExited(cmd.Process.Pid)
	close(exited)
}

// newTempFile creates a temporary file and, when it can be reopened through
// /proc, removes its name at once, so that it disappears with its last
// descriptor however this process ends.
func newTempFile(pattern string) (*tempFile, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, err
	}
	t := &tempFile{f: f, name: f.Name(), path: f.Name()}
	byFD := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	viaProc, err1 := os.Stat(byFD)
	own, err2 := f.Stat()
	if err1 == nil && err2 == nil && os.SameFile(viaProc, own) && os.Remove(t.name) == nil {
		t.name, t.path = "", byFD
	}
	return t, nil
}

// child is a started program that signals can be sent to.
type child struct {
	pid  int
	proc *os.Process
	// group is set when the program leads its own process group. Signals
	// then go to the whole group, as they would from a terminal, so that
	// a wrapper such as "go run" and the program it starts both get them.
	group bool
	// stopped is set once a SIGINT or SIGTERM was passed on or sent.
	stopped bool
}

// signal sends sig to the program, or to its process group.
func (c *child) signal(sig syscall.Signal) {
	if c.group {
		// ESRCH only means the group has no members left.
		unix.Kill(-c.pid, sig)
		return
	}
	c.proc.Signal(sig)
}

// supervise forwards each signal from sigs once, and turns the
// cancellation of ctx into SIGTERM. The first SIGINT or SIGTERM, forwarded
// or sent, starts a grace period after which the program is killed; a
// second SIGINT or SIGTERM from sigs kills it at once, as a second Ctrl-C
// does to a program that ignores the first. A cancellation that comes with
// or after a forwarded signal is not taken for a second request, since a
// caller may cancel ctx on the very Ctrl-C that sigs delivers.
//
// supervise returns when exited is closed, which happens only after the
// program has exited and before it is reaped, so no signal can reach a
// process that reused the ID. It reports whether it sent SIGKILL.
func (c *child) supervise(ctx context.Context, sigs <-chan os.Signal, exited <-chan struct{}, grace time.Duration) (killed bool) {
	done := ctx.Done()
	var (
		graceEnd <-chan time.Time
		stopping bool
	)
	stop := func() {
		stopping, c.stopped = true, true
		t := time.NewTimer(grace)
		graceEnd = t.C
	}
	kill := func() {
		if !killed {
			killed = true
			c.signal(syscall.SIGKILL)
		}
	}
	for {
		select {
		case <-exited:
			return killed
		case sig := <-sigs:
			s, ok := sig.(syscall.Signal)
			if !ok {
				continue
			}
			isStop := s == syscall.SIGINT || s == syscall.SIGTERM
			if isStop && stopping {
				kill()
				continue
			}
			c.signal(s)
			if isStop {
				stop()
			}
		case <-done:
			done = nil
			if !stopping {
				c.signal(syscall.SIGTERM)
				stop()
			}
		case <-graceEnd:
			graceEnd = nil
			kill()
		}
	}
}

// waitExited blocks until process pid has exited, leaving it to be reaped
// by os/exec.
func waitExited(pid int) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// peakRSS returns the largest RSS of the program. The kernel's maximum RSS
// for the child is exact but, because os/exec starts programs with vfork,
// it begins at this process's own peak at the time of the exec. It is used
// only when it exceeds this process's peak and so cannot be inherited;
// otherwise the largest sample is the best estimate.
func peakRSS(samples []bundle.RSSSample, ps *os.ProcessState) int64 {
	var peak int64
	for _, s := range samples {
		peak = max(peak, s.RSS)
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return peak
	}
	maxrss := ru.Maxrss * 1024 // kibibytes on Linux
	var own int64
	if self, err := procfs.Self(); err == nil {
		if st, err := self.NewStatus(); err == nil {
			own = int64(st.VmHWM)
		}
	}
	if maxrss > own {
		peak = max(peak, maxrss)
	}
	return peak
}

// rssSampler samples the RSS of a process in the background.
type rssSampler struct {
	quit chan struct{}
	done chan struct{}
	buf  rssBuffer
}

// sampleRSS starts sampling the RSS of process pid every interval, with
// elapsed times counted from start, keeping at most limit samples.
func sampleRSS(pid int, start time.Time, every time.Duration, limit int) *rssSampler {
	s := &rssSampler{quit: make(chan struct{}), done: make(chan struct{}), buf: rssBuffer{limit: max(limit, 2), every: every}}
	go func() {
		defer close(s.done)
		proc, err := procfs.NewProc(pid)
		if err != nil {
			return
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			// An exited process that is not yet reaped reports an RSS of
			// zero, which is not a measurement of the program.
			if st, err := proc.Stat(); err == nil && st.ResidentMemory() > 0 {
				if s.buf.add(bundle.RSSSample{Elapsed: time.Since(start), RSS: int64(st.ResidentMemory())}) {
					tick.Reset(s.buf.every)
				}
			}
			select {
			case <-s.quit:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

// stop ends sampling and returns the samples taken and the interval
// between them at the end.
func (s *rssSampler) stop() ([]bundle.RSSSample, time.Duration) {
	close(s.quit)
	<-s.done
	return s.buf.samples, s.buf.every
}

// rssBuffer holds RSS samples taken every interval, at most limit of them:
// when it is full, every other sample is dropped and the interval doubles,
// so that it covers a run of any length evenly.
type rssBuffer struct {
	limit   int
	every   time.Duration
	samples []bundle.RSSSample
}

// add appends x, first thinning the samples when the buffer is full. It
// reports whether the interval changed.
func (b *rssBuffer) add(x bundle.RSSSample) bool {
	thinned := false
	if len(b.samples) >= b.limit {
		n := 0
		for i := 0; i < len(b.samples); i += 2 {
			b.samples[n] = b.samples[i]
			n++
		}
		b.samples = b.samples[:n]
		b.every *= 2
		thinned = true
	}
	b.samples = append(b.samples, x)
	return thinned
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// passWriter copies the program's output to the caller's writer w and, for
// standard error, to file. It never reports an error to os/exec, which
// would stop copying and leave the program blocked on a full pipe: a
// failing w is dropped, and a failing file is remembered in fileErr.
type passWriter struct {
	w       io.Writer
	file    io.Writer
	fileErr error
}

// Write always reports success; see passWriter.
func (p *passWriter) Write(b []byte) (int, error) {
	if p.file != nil && p.fileErr == nil {
		if _, err := p.file.Write(b); err != nil {
			p.fileErr = err
		}
	}
	if p.w != nil {
		if _, err := p.w.Write(b); err != nil {
			p.w = nil
		}
	}
	return len(b), nil
}

// unwrapPath drops the *fs.PathError wrapper whose path the caller already
// names in its own message.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
