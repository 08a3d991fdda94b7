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

	"github.com/gcdoctor/gcdoctor/agent"
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
// The gctrace log holds the program's standard error and the gctrace
// lines of its standard output, where go test, for one, puts those of the
// test binary. When the program is the go command, Run runs its tools
// under the calling binary (see gotool_linux.go), so that their gctrace
// lines reach the log but not the go command's build cache, and leaves out
// of the log the gctrace lines the go command replays from that cache.
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
	p, err := prepare(s)
	if err != nil {
		return nil, err
	}
	trace, err := openTrace(s.Out)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", s.Path, err)
	}
	out, err := p.outputs(ctx, trace.f)
	if err == nil {
		err = p.start(out)
	}
	if err != nil {
		out.abandon()
		trace.discard()
		return nil, fmt.Errorf("run %s: %w", s.Path, err)
	}
	ended := p.watch(ctx, sigs)
	logErr := out.finish(p.grace)
	res := p.result(ended, trace, out.replays.dropped)
	return res, p.save(res, ended, trace, logErr)
}

// program is a Spec checked and resolved, ready to run.
type program struct {
	s         Spec
	path      string // absolute path of the executable
	goVersion string // of the toolchain that built it, "" if not Go
	goCommand bool   // the program is the go command
	env       []string
	stdin     io.Reader
	every     time.Duration // RSS sampling interval
	grace     time.Duration
	cmd       *exec.Cmd
	started   time.Time
	exited    chan struct{} // closed when the program has exited, before it is reaped
	// ownHWM is this process's VmHWM just after the program started, in
	// bytes: what the kernel's maximum RSS of the program may have taken
	// from this process (see peakRSS).
	ownHWM int64
}

// prepare checks s and finds the program it names.
func prepare(s Spec) (*program, error) {
	if s.Path == "" {
		return nil, errors.New("run: no command given")
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	path, err := lookPath(s.Path)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", s.Path, err)
	}
	if err := checkDir(s.Dir); err != nil {
		return nil, fmt.Errorf("run %s: %w", s.Path, err)
	}
	p := &program{s: s, path: path, every: orDefault(s.SampleEvery, DefaultSampleEvery), grace: orDefault(s.Grace, DefaultGrace)}
	// Read before starting: the file may be replaced while the program
	// runs, and the evidence must describe what actually ran.
	if info, err := buildinfo.ReadFile(path); err == nil {
		p.goVersion = info.GoVersion
		p.goCommand = isGoCommand(info)
	}
	p.env = s.Env
	if p.env == nil {
		p.env = os.Environ()
	}
	p.stdin = s.Stdin
	if s.Signals && isTerminal(p.stdin) {
		p.stdin = nil
	}
	return p, nil
}

// lookPath returns the absolute path of the program named name.
func lookPath(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			err = unwrapPath(ee.Err)
		}
		return "", err
	}
	return filepath.Abs(path)
}

// checkDir checks that dir, when given, is a directory. os.StartProcess
// checks the directory only when there are no SysProcAttr; the child's
// failure to enter it would otherwise be reported as a missing program.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err == nil && !fi.IsDir() {
		err = &fs.PathError{Op: "chdir", Path: dir, Err: syscall.ENOTDIR}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Op = "chdir"
	}
	return err
}

// traceFile is the file that receives the gctrace log: gctrace.log in the
// bundle, or a temporary file.
type traceFile struct {
	f    *os.File
	temp *tempFile // nil with a bundle
}

// openTrace creates the gctrace file in out, or a temporary one when out
// is nil.
func openTrace(out *bundle.Writer) (*traceFile, error) {
	if out != nil {
		f, err := out.Create(bundle.GCTraceFile)
		return &traceFile{f: f}, err
	}
	temp, err := newTempFile("gcdoctor-gctrace-*.log")
	if err != nil {
		return nil, err
	}
	return &traceFile{f: temp.f, temp: temp}, nil
}

// discard removes the file after the program failed to start.
func (t *traceFile) discard() {
	if t.temp != nil {
		t.temp.remove()
		return
	}
	t.f.Close()
	os.Remove(t.f.Name())
}

// path returns the path that reads the file while the Result lives.
func (t *traceFile) path() string {
	if t.temp != nil {
		return t.temp.path
	}
	return t.f.Name()
}

// close closes a bundle's file. A temporary file stays open until
// Cleanup: it may have no name left to reopen it by.
func (t *traceFile) close() error {
	if t.temp != nil {
		return nil
	}
	return t.f.Close()
}

// outputs is where the program's output goes while it runs: through to the
// caller, and, for what holds gctrace lines, to the log.
type outputs struct {
	log      *traceLog
	stderr   *passWriter
	stdout   *passWriter
	errLines *lineWriter
	outLines *lineWriter
	replays  *replayFilter // the go command's replayed blocks; empty for other programs
	tools    *goTools      // nil unless the program is the go command
}

// outputs sets up the program's environment and the paths its output
// takes to the caller and to the log in file.
func (p *program) outputs(ctx context.Context, file io.Writer) (*outputs, error) {
	log := &traceLog{w: file}
	o := &outputs{log: log, replays: &replayFilter{emit: log.write}}
	o.outLines = &lineWriter{emit: (&traceFilter{log: log}).line}
	o.errLines = &lineWriter{emit: log.write}
	env := p.env
	if p.goCommand {
		o.errLines.emit = o.replays.line
		var err error
		if o.tools, err = startGoTools(log, env); err != nil {
			return o, err
		}
		if env, err = goCommandEnv(ctx, &p.s, p.path, env, o.tools); err != nil {
			return o, err
		}
	}
	p.env = withGCTrace(env)
	if out := p.s.Out; out != nil {
		// A program that calls agent.WatchHeapPeak writes its heap
		// profile at the peak into the bundle; exec.Cmd keeps the last
		// of duplicate variables, so this one wins.
		path, err := out.Reserve(bundle.HeapFile)
		if err != nil {
			return o, err
		}
		p.env = append(p.env, agent.HeapPeakEnv+"="+path)
	}
	o.stderr = &passWriter{w: p.s.Stderr, file: o.errLines}
	// Standard output is read even when the caller discards it: the
	// program may write its gctrace lines there.
	o.stdout = &passWriter{w: p.s.Stdout, file: o.outLines}
	return o, nil
}

// abandon stops listening for the tools of a program that did not start.
func (o *outputs) abandon() {
	if o != nil && o.tools != nil {
		o.tools.stop(0)
	}
}

// finish writes what is left of the program's output to the log, once the
// program has exited and its output is closed, and returns the first error
// writing the log. The tools' lines are read first, waiting at most grace:
// a last piece of standard error without a line end stays last.
func (o *outputs) finish(grace time.Duration) error {
	if o.tools != nil {
		o.tools.stop(grace)
	}
	o.outLines.flush()
	o.errLines.flush()
	o.replays.flush()
	return o.log.failure()
}

// start starts the program with its output going to o.
func (p *program) start(o *outputs) error {
	p.cmd = &exec.Cmd{
		Path:   p.path,
		Args:   append([]string{p.s.Path}, p.s.Args...),
		Env:    p.env,
		Dir:    p.s.Dir,
		Stdin:  p.stdin,
		Stdout: o.stdout,
		Stderr: o.stderr,
		// Without a bound, a background process started by the program
		// and holding its output open would keep Run waiting after the
		// program itself has exited.
		WaitDelay: p.grace,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid: p.s.Signals,
			// A program left running after gcdoctor dies would run on
			// unobserved, its output going nowhere.
			Pdeathsig: syscall.SIGKILL,
		},
	}
	p.started = time.Now()
	started := make(chan error, 1)
	p.exited = make(chan struct{})
	go startLocked(p.cmd, started, p.exited)
	err := <-started
	p.ownHWM = selfHWM()
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "fork/exec" {
		err = pe.Err
	}
	return err
}

// outcome is what watching a program until it exited found.
type outcome struct {
	duration time.Duration
	killed   bool
	stopped  bool // a SIGINT or SIGTERM was passed on or sent
	rss      []bundle.RSSSample
	hwm      int64 // the program's peak RSS as the kernel kept it (VmHWM) at the last sample, bytes
	host     []bundle.HostSample
	every    time.Duration // RSS sampling interval at the end
	memLimit int64
	cpuLimit float64
	waitErr  error
}

// watch samples the started program and passes signals on to it until it
// exits, then reaps it.
func (p *program) watch(ctx context.Context, sigs <-chan os.Signal) *outcome {
	o := &outcome{}
	c := &child{pid: p.cmd.Process.Pid, proc: p.cmd.Process, group: p.s.Signals}
	o.memLimit, o.cpuLimit = cgroupLimits(c.pid)
	samples := sampleRSS(c.pid, p.started, p.every, MaxRSSSamples)
	host := sampleHost(c.pid, p.started, p.every, MaxRSSSamples)
	supervised := make(chan bool, 1)
	go func() {
		supervised <- c.supervise(ctx, sigs, p.exited, p.grace)
	}()
	<-p.exited
	o.duration = time.Since(p.started)
	o.killed = <-supervised
	o.rss, o.every, o.hwm = samples.stop()
	o.host = host.stop()
	o.stopped = c.stopped
	o.waitErr = p.cmd.Wait()
	return o
}

// result describes the finished run.
func (p *program) result(o *outcome, trace *traceFile, replayed int) *Result {
	res := &Result{
		Start:       p.started,
		Duration:    o.duration,
		Killed:      o.killed,
		RSS:         o.rss,
		Host:        o.host,
		CPU:         -1,
		SampleEvery: o.every,
		GCTracePath: trace.path(),
		GoVersion:   p.goVersion,
		Replayed:    replayed,
		temp:        trace.temp,
	}
	var exitCode *int
	if ps := p.cmd.ProcessState; ps != nil {
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
		res.PeakRSS = max(peakRSS(o.rss, ps, p.ownHWM), o.hwm)
		res.CPU = ps.UserTime() + ps.SystemTime()
	}
	res.Meta = &bundle.Meta{
		SchemaVersion:          bundle.SchemaVersion,
		ToolVersion:            p.s.ToolVersion,
		Command:                redactArgs(p.cmd.Args),
		ExitCode:               exitCode,
		Start:                  p.started.Round(0),
		DurationMS:             float64(o.duration) / float64(time.Millisecond),
		GoVersion:              p.goVersion,
		GOGC:                   lookupEnv(p.env, "GOGC"),
		GOMEMLIMIT:             lookupEnv(p.env, "GOMEMLIMIT"),
		GOMAXPROCS:             lookupEnv(p.env, "GOMAXPROCS"),
		GODEBUG:                lookupEnv(p.env, "GODEBUG"),
		NumCPU:                 runtime.NumCPU(),
		CgroupMemoryLimitBytes: o.memLimit,
		CgroupCPULimit:         o.cpuLimit,
		PeakRSSBytes:           res.PeakRSS,
		Files:                  map[string]string{},
		Stopped:                o.stopped,
		Host:                   bundle.SummarizeHost(o.host),
	}
	return res
}

// save closes the gctrace file and, with a bundle, writes the RSS samples
// and meta.json. It returns the errors met since the program started.
func (p *program) save(res *Result, o *outcome, trace *traceFile, logErr error) error {
	// A non-zero exit is reported through ExitCode; what remains are
	// failures to move the program's input or output.
	waitErr := o.waitErr
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) || errors.Is(waitErr, exec.ErrWaitDelay) {
		waitErr = nil
	}
	err := errors.Join(waitErr, logErr, trace.close())
	if out := p.s.Out; out != nil {
		// Whatever can still be saved is, even after an error: a partial
		// gctrace.log with its meta.json is still worth analysing.
		res.Meta.Files[bundle.GCTraceFile] = gctraceFileDoc
		rssErr := out.WriteRSS(res.RSS)
		if rssErr == nil {
			res.Meta.Files[bundle.RSSFile] = fmt.Sprintf("resident set size of the program in bytes, sampled every %v", res.SampleEvery)
		}
		if _, err := os.Stat(out.Path(bundle.HeapFile)); err == nil {
			res.Meta.Files[bundle.HeapFile] = heapPeakFileDoc
		}
		hostErr := writeHost(out, res.Meta, o.host)
		res.Meta.Created = time.Now().Round(0)
		err = errors.Join(err, rssErr, hostErr, out.WriteMeta(res.Meta))
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", p.s.Path, err)
	}
	return nil
}

// gctraceFileDoc describes gctrace.log in meta.json.
const gctraceFileDoc = "standard error of the program with its GODEBUG=gctrace=1 lines, the gctrace lines of its standard output, and those of the tools the go command ran"

// heapPeakFileDoc describes heap.pb.gz in meta.json when the program wrote
// it (agent.WatchHeapPeak).
const heapPeakFileDoc = "heap profile the program wrote (agent.WatchHeapPeak) at the end of the collection that found its live heap highest"

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

// peakRSS returns the largest RSS of the program: the largest sample, or
// the kernel's maximum RSS of the child when that is known to be the
// program's. The kernel's figure is exact but, because os/exec starts
// programs with vfork, it begins at this process's own high-water mark at
// the time of the exec (own, read just after the start). It is used only
// when it exceeds that and so cannot be inherited. The sampler's reading
// of the program's own VmHWM covers the rest (rssSampler.hwm).
func peakRSS(samples []bundle.RSSSample, ps *os.ProcessState, own int64) int64 {
	var peak int64
	for _, s := range samples {
		peak = max(peak, s.RSS)
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return peak
	}
	maxrss := ru.Maxrss * 1024 // kibibytes on Linux
	if own <= 0 {
		own = selfHWM()
	}
	if maxrss > own {
		peak = max(peak, maxrss)
	}
	return peak
}

// selfHWM returns this process's VmHWM in bytes, 0 when unknown.
func selfHWM() int64 {
	if self, err := procfs.Self(); err == nil {
		if st, err := self.NewStatus(); err == nil {
			return int64(st.VmHWM)
		}
	}
	return 0
}

// rssSampler samples the RSS of a process in the background.
type rssSampler struct {
	quit chan struct{}
	done chan struct{}
	buf  rssBuffer
	// hwm is the largest VmHWM read: the kernel's own high-water mark of
	// the program's RSS, which holds a peak between two samples. Sampling
	// starts after the exec, so it is the program's and not inherited.
	hwm int64
}

// sampleRSS starts sampling the RSS and the CPU time of process pid every interval, with
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
				// The kernel counts CPU time in clock ticks (10 ms): whole
				// ms keep rss.csv free of float residue.
				cpu := time.Duration(st.CPUTime() * float64(time.Second)).Round(time.Millisecond)
				if s.buf.add(bundle.RSSSample{Elapsed: time.Since(start), RSS: int64(st.ResidentMemory()), CPU: cpu, HasCPU: true}) {
					tick.Reset(s.buf.every)
				}
				s.readHWM(proc)
			}
			select {
			case <-s.quit:
				// A program still running has its latest high-water mark;
				// one that has exited has none left to read.
				s.readHWM(proc)
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

// readHWM keeps the program's VmHWM when it is larger than hwm.
func (s *rssSampler) readHWM(proc procfs.Proc) {
	if ps, err := proc.NewStatus(); err == nil {
		s.hwm = max(s.hwm, int64(ps.VmHWM))
	}
}

// stop ends sampling and returns the samples taken, the interval
// between them at the end and the largest VmHWM read, in bytes.
func (s *rssSampler) stop() ([]bundle.RSSSample, time.Duration, int64) {
	close(s.quit)
	<-s.done
	return s.buf.samples, s.buf.every, s.hwm
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
