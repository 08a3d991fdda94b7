package collect

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"

	"github.com/gcdoctor/gcdoctor/agent"
	"github.com/gcdoctor/gcdoctor/bundle"
)

// allocBin is the test program built from testdata/alloc, and allocGoVersion
// the version of the toolchain that built it; allocErr is why there is
// none.
var (
	allocBin       string
	allocGoVersion string
	allocErr       error
)

// helperEnv names the environment variable that makes the test binary act
// as a helper process instead of running tests: a caller of Run that the
// tests can kill, or whose standard output they can close.
const helperEnv = "GCDOCTOR_COLLECT_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "collect-test-*")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		allocBin, allocGoVersion, allocErr = buildAlloc(dir)
		return m.Run()
	}())
}

// buildAlloc builds testdata/alloc into dir once for all tests.
func buildAlloc(dir string) (bin, goVersion string, err error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", "", err
	}
	bin = filepath.Join(dir, "alloc")
	if out, err := exec.Command(goTool, "build", "-o", bin, "./testdata/alloc").CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build ./testdata/alloc: %v\n%s", err, out)
	}
	out, err := exec.Command(goTool, "env", "GOVERSION").Output()
	if err != nil {
		return "", "", fmt.Errorf("go env GOVERSION: %v", err)
	}
	return bin, strings.TrimSpace(string(out)), nil
}

// alloc returns the path of the test program, skipping the test when there
// is no go command to build it.
func alloc(t *testing.T) string {
	t.Helper()
	if allocBin == "" {
		if errors.Is(allocErr, exec.ErrNotFound) {
			t.Skip("no go command to build testdata/alloc")
		}
		t.Fatal(allocErr)
	}
	return allocBin
}

// lockedBuffer is a bytes.Buffer that can be read while Run writes to it,
// and that reports when a line containing ready arrives.
type lockedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready string
	once  sync.Once
	seen  chan struct{}
}

func newLockedBuffer(ready string) *lockedBuffer {
	return &lockedBuffer{ready: ready, seen: make(chan struct{})}
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.ready != "" && strings.Contains(b.buf.String(), b.ready) {
		b.once.Do(func() { close(b.seen) })
	}
	return n, err
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSampleRSSHighWater: a peak of RSS that comes and goes between two
// samples is kept by the kernel's high-water mark (VmHWM), which the
// sampler reads with each sample and when it stops. The program maps and
// touches 64 MiB 200 ms after its start and unmaps them; samples come
// every 10 s, so only the one at the start is taken.
func TestSampleRSSHighWater(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	cmd := exec.Command(bin, "-alloc=0", "-spike=64", "-spike-after=200ms", "-sleep")
	out := newLockedBuffer("alloc: ready")
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	s := sampleRSS(cmd.Process.Pid, time.Now(), 10*time.Second, 16)
	select {
	case <-out.seen:
	case <-time.After(time.Minute):
		t.Fatalf("no ready line: %q", out.String())
	}
	samples, _, hwm := s.stop()
	if !strings.Contains(out.String(), "alloc: spike done") {
		t.Fatalf("no spike: %q", out.String())
	}
	largest := int64(0)
	for _, x := range samples {
		largest = max(largest, x.RSS)
	}
	// The one sample is taken at the start, before the spike (on a busy
	// machine it may come later, and see part of it).
	if hwm < 64<<20 || hwm < largest {
		t.Errorf("VmHWM %d bytes, largest of %d samples %d bytes; want the 64 MiB spike in VmHWM", hwm, len(samples), largest)
	}
}

func TestRunBundle(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	dir := filepath.Join(t.TempDir(), "bundle")
	w, err := bundle.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	res, err := Run(context.Background(), Spec{
		Path:        bin,
		Args:        []string{"-alloc=300ms"},
		Env:         append(os.Environ(), "GOGC=100", "GOMEMLIMIT=", "GODEBUG=madvdontneed=1"),
		Stdout:      &stdout,
		Stderr:      &stderr,
		Out:         w,
		SampleEvery: 20 * time.Millisecond,
		ToolVersion: "v9.9.9-test",
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.Signaled {
		t.Errorf("ExitCode = %d, Signaled = %v; want 0, false", res.ExitCode, res.Signaled)
	}
	if !strings.Contains(stdout.String(), "alloc: hello on stdout") || strings.Contains(stdout.String(), "hello on stderr") {
		t.Errorf("stdout = %q", stdout.String())
	}
	if !strings.Contains(stderr.String(), "alloc: hello on stderr") || !strings.Contains(stderr.String(), "\ngc ") {
		t.Errorf("stderr lacks the program's output or gctrace lines: %q", stderr.String())
	}
	if want := w.Path(bundle.GCTraceFile); res.GCTracePath != want {
		t.Errorf("GCTracePath = %q, want %q", res.GCTracePath, want)
	}
	trace, err := os.ReadFile(res.GCTracePath)
	if err != nil {
		t.Fatal(err)
	}
	if string(trace) != stderr.String() {
		t.Errorf("gctrace.log differs from what was passed through:\n%s\nvs\n%s", trace, stderr.String())
	}
	if len(res.RSS) == 0 || res.PeakRSS <= 0 {
		t.Fatalf("RSS = %v, PeakRSS = %d; want samples and a peak", res.RSS, res.PeakRSS)
	}
	t.Logf("%d RSS samples, largest %d bytes; PeakRSS %d bytes", len(res.RSS), slices.MaxFunc(res.RSS, func(a, b bundle.RSSSample) int { return cmp.Compare(a.RSS, b.RSS) }).RSS, res.PeakRSS)
	for i, s := range res.RSS {
		if s.RSS <= 0 || s.RSS > res.PeakRSS || (i > 0 && s.Elapsed < res.RSS[i-1].Elapsed) {
			t.Errorf("sample %d = %+v is inconsistent with PeakRSS %d and the previous sample", i, s, res.PeakRSS)
		}
	}
	if res.GoVersion != allocGoVersion {
		t.Errorf("GoVersion = %q, want %q", res.GoVersion, allocGoVersion)
	}
	if res.SampleEvery != 20*time.Millisecond || res.Killed {
		t.Errorf("SampleEvery = %v, Killed = %v; want 20ms, false", res.SampleEvery, res.Killed)
	}
	if res.Duration <= 0 || res.Start.IsZero() {
		t.Errorf("Start = %v, Duration = %v", res.Start, res.Duration)
	}
	// The program allocated for 300ms of wall time: whatever the load of
	// the machine, some of it on a CPU.
	if res.CPU <= 0 {
		t.Errorf("CPU = %v, want the program's CPU time", res.CPU)
	}
	if err := res.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(res.GCTracePath); err != nil {
		t.Errorf("Cleanup removed evidence from the bundle: %v", err)
	}

	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	m := b.Meta()
	if m == nil {
		t.Fatal("bundle has no meta.json")
	}
	checks := []struct {
		field     string
		got, want any
	}{
		{"schema_version", m.SchemaVersion, bundle.SchemaVersion},
		{"tool_version", m.ToolVersion, "v9.9.9-test"},
		{"command", strings.Join(m.Command, " "), bin + " -alloc=300ms"},
		{"exit_code", m.ExitCode != nil && *m.ExitCode == 0, true},
		{"start", m.Start.Equal(res.Start), true},
		{"duration_ms", m.DurationMS, float64(res.Duration) / 1e6},
		{"go_version", m.GoVersion, allocGoVersion},
		{"gogc", m.GOGC, "100"},
		{"gomemlimit", m.GOMEMLIMIT, ""},
		{"godebug", m.GODEBUG, "madvdontneed=1,gctrace=1"},
		{"num_cpu", m.NumCPU, runtime.NumCPU()},
		{"peak_rss_bytes", m.PeakRSSBytes, res.PeakRSS},
		{"created", m.Created.IsZero(), false},
		{"files", slices.Sorted(mapKeys(m.Files)), []string{bundle.GCTraceFile, bundle.HostFile, bundle.RSSFile}},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("meta.json %s = %v, want %v", c.field, c.got, c.want)
		}
	}
	if m.CgroupMemoryLimitBytes < 0 || m.CgroupCPULimit < 0 {
		t.Errorf("cgroup limits = %d bytes, %g CPUs", m.CgroupMemoryLimitBytes, m.CgroupCPULimit)
	}
	rss, err := b.RSS()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rss, res.RSS) {
		t.Errorf("rss.csv = %v, want %v", rss, res.RSS)
	}
	if names := b.Names(); !slices.Equal(names, []string{bundle.GCTraceFile, bundle.HostFile, bundle.MetaFile, bundle.RSSFile}) {
		t.Errorf("bundle holds %q", names)
	}
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestRunWithoutBundle(t *testing.T) {
	t.Parallel()
	res, err := Run(context.Background(), Spec{Path: alloc(t), Args: []string{"-alloc=50ms"}})
	if err != nil {
		t.Fatal(err)
	}
	trace, err := os.ReadFile(res.GCTracePath)
	if err != nil {
		t.Fatal(err)
	}
	// The start of a gctrace line is all a loaded machine promises: the
	// program may exit while the runtime prints its first cycle.
	if !bytes.Contains(trace, []byte("\ngc ")) || !bytes.Contains(trace, []byte("alloc: hello on stderr")) {
		t.Errorf("%s lacks gctrace lines or program output:\n%s", res.GCTracePath, trace)
	}
	if bytes.Contains(trace, []byte("hello on stdout")) {
		t.Errorf("%s holds standard output", res.GCTracePath)
	}
	if len(res.Meta.Files) != 0 {
		t.Errorf("Meta.Files = %v without a bundle", res.Meta.Files)
	}
	// The file has no name left that a crash could leave behind: it is
	// reached through its descriptor, which the kernel shows as deleted.
	target, err := os.Readlink(res.GCTracePath)
	if err != nil || !strings.HasSuffix(target, " (deleted)") {
		t.Errorf("GCTracePath %s links to %q (%v), want a deleted file", res.GCTracePath, target, err)
	}
	f := res.temp.f
	if err := res.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("temporary gctrace file still open after Cleanup: %v", err)
	}
	if err := res.Cleanup(); err != nil {
		t.Errorf("second Cleanup: %v", err)
	}
}

func TestRunExitCode(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	tests := []struct {
		name     string
		args     []string
		code     int
		signaled bool
	}{
		{"zero", []string{"-alloc=0"}, 0, false},
		{"three", []string{"-alloc=0", "-exit=3"}, 3, false},
		{"killed", []string{"-alloc=0", "-kill-self"}, 128 + int(syscall.SIGKILL), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Run(context.Background(), Spec{Path: bin, Args: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			defer res.Cleanup()
			if res.ExitCode != tt.code || res.Signaled != tt.signaled {
				t.Errorf("ExitCode = %d, Signaled = %v; want %d, %v", res.ExitCode, res.Signaled, tt.code, tt.signaled)
			}
			if res.Meta.ExitCode == nil || *res.Meta.ExitCode != tt.code {
				t.Errorf("Meta.ExitCode = %v, want %d", res.Meta.ExitCode, tt.code)
			}
		})
	}
}

func TestRunNotGo(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	var stdout bytes.Buffer
	res, err := Run(context.Background(), Spec{
		Path:   sh,
		Args:   []string{"-c", `echo "$GODEBUG"; exit 7`, "-dsn=postgres://app:s3cret@db:5432/x"},
		Env:    []string{"GODEBUG=gctrace=2,x=1"},
		Stdout: &stdout,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Cleanup()
	if res.ExitCode != 7 || res.GoVersion != "" || res.Meta.GoVersion != "" {
		t.Errorf("ExitCode = %d, GoVersion = %q; want 7, empty", res.ExitCode, res.GoVersion)
	}
	if got := stdout.String(); got != "x=1,gctrace=1\n" {
		t.Errorf("program saw GODEBUG %q, want x=1,gctrace=1", got)
	}
	// The record of the command, which may be shared, keeps no password.
	if got, want := res.Meta.Command[len(res.Meta.Command)-1], "-dsn=postgres://app:xxxxx@db:5432/x"; got != want {
		t.Errorf("Meta.Command ends in %q, want %q", got, want)
	}
}

func TestRunEnvironment(t *testing.T) {
	t.Parallel()
	var stdout bytes.Buffer
	res, err := Run(context.Background(), Spec{
		Path:   alloc(t),
		Args:   []string{"-alloc=0"},
		Env:    []string{"GODEBUG=madvdontneed=1,gctrace=2", "GOGC=50", "GOMEMLIMIT=1GiB", "GOMAXPROCS=2", "GOGC=off"},
		Stdout: &stdout,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Cleanup()
	if !strings.Contains(stdout.String(), "alloc: GODEBUG=madvdontneed=1,gctrace=1\n") {
		t.Errorf("program output %q does not show the merged GODEBUG", stdout.String())
	}
	m := res.Meta
	if m.GOGC != "off" || m.GOMEMLIMIT != "1GiB" || m.GOMAXPROCS != "2" || m.GODEBUG != "madvdontneed=1,gctrace=1" {
		t.Errorf("Meta GOGC=%q GOMEMLIMIT=%q GOMAXPROCS=%q GODEBUG=%q", m.GOGC, m.GOMEMLIMIT, m.GOMAXPROCS, m.GODEBUG)
	}
}

// errReady is the cancellation cause that shows a test acted on the
// program's readiness rather than on its safety timeout.
var errReady = errors.New("program is ready")

// runUntilReady runs the program with sigs as the forwarded signals and
// calls act once the program prints "alloc: ready". A generous timeout
// turns a hung program into a failure instead of a hung test.
func runUntilReady(t *testing.T, s Spec, sigs <-chan os.Signal, act func(cancel context.CancelCauseFunc)) (*Result, *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	safety := time.AfterFunc(30*time.Second, func() { cancel(errors.New("safety timeout")) })
	defer safety.Stop()
	stdout := newLockedBuffer("alloc: ready\n")
	s.Stdout = stdout
	go func() {
		select {
		case <-stdout.seen:
			act(cancel)
		case <-ctx.Done():
		}
	}()
	res, err := run(ctx, s, sigs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Cleanup() })
	if cause := context.Cause(ctx); cause != nil && cause != errReady {
		t.Fatalf("run ended by %v; output %q", cause, stdout.String())
	}
	return res, stdout
}

func TestRunCancel(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	tests := []struct {
		name     string
		args     []string
		code     int
		signaled bool
		killed   bool
		output   string
	}{
		// The program handles SIGTERM and exits on its own.
		{"handled", []string{"-wait", "-exit=5"}, 5, false, false, "alloc: got terminated"},
		// The program dies of SIGTERM.
		{"default", []string{"-sleep"}, 128 + int(syscall.SIGTERM), true, false, ""},
		// The program ignores SIGTERM and is killed after the grace period.
		{"ignored", []string{"-ignore-term"}, 128 + int(syscall.SIGKILL), true, true, ""},
	}
	for _, tt := range tests {
		for _, group := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/group=%v", tt.name, group), func(t *testing.T) {
				t.Parallel()
				s := Spec{Path: bin, Args: append([]string{"-alloc=0"}, tt.args...), Signals: group, Grace: 200 * time.Millisecond}
				res, stdout := runUntilReady(t, s, nil, func(cancel context.CancelCauseFunc) { cancel(errReady) })
				if res.ExitCode != tt.code || res.Signaled != tt.signaled || res.Killed != tt.killed {
					t.Errorf("ExitCode = %d, Signaled = %v, Killed = %v; want %d, %v, %v", res.ExitCode, res.Signaled, res.Killed, tt.code, tt.signaled, tt.killed)
				}
				if !strings.Contains(stdout.String(), tt.output) {
					t.Errorf("output %q lacks %q", stdout.String(), tt.output)
				}
			})
		}
	}
}

func TestRunForwardSignals(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	tests := []struct {
		sig  syscall.Signal
		name string // as the program prints it
	}{
		{syscall.SIGINT, "interrupt"},
		{syscall.SIGTERM, "terminated"},
		{syscall.SIGHUP, "hangup"},
	}
	for _, tt := range tests {
		for _, group := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/group=%v", tt.name, group), func(t *testing.T) {
				t.Parallel()
				sigs := make(chan os.Signal, 1)
				s := Spec{Path: bin, Args: []string{"-alloc=0", "-wait", "-exit=4"}, Signals: group}
				res, stdout := runUntilReady(t, s, sigs, func(context.CancelCauseFunc) { sigs <- tt.sig })
				if res.ExitCode != 4 || res.Signaled || res.Killed {
					t.Errorf("ExitCode = %d, Signaled = %v, Killed = %v; want 4, false, false", res.ExitCode, res.Signaled, res.Killed)
				}
				if want := "alloc: got " + tt.name + "\n"; !strings.HasSuffix(stdout.String(), want) {
					t.Errorf("output %q does not end in %q", stdout.String(), want)
				}
			})
		}
	}
}

// TestRunProcessGroup checks that with Signals the program leads its own
// process group, so that a terminal's Ctrl-C, sent to the foreground group,
// reaches it only through Run; without Signals it stays in Run's group.
func TestRunProcessGroup(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	for _, group := range []bool{false, true} {
		t.Run(fmt.Sprintf("group=%v", group), func(t *testing.T) {
			t.Parallel()
			var stdout bytes.Buffer
			res, err := Run(context.Background(), Spec{Path: bin, Args: []string{"-alloc=0"}, Signals: group, Stdout: &stdout})
			if err != nil {
				t.Fatal(err)
			}
			defer res.Cleanup()
			var pid, pgid int
			for _, line := range strings.Split(stdout.String(), "\n") {
				if _, err := fmt.Sscanf(line, "alloc: pid=%d pgid=%d", &pid, &pgid); err == nil {
					break
				}
			}
			if pid == 0 {
				t.Fatalf("program did not report its process group: %q", stdout.String())
			}
			own := unix.Getpgrp()
			if group && (pgid != pid || pgid == own) {
				t.Errorf("program pid %d is in group %d, want its own group (Run's is %d)", pid, pgid, own)
			}
			if !group && pgid != own {
				t.Errorf("program is in group %d, want Run's group %d", pgid, own)
			}
		})
	}
}

// openPTY returns the follower side of a new pseudo-terminal.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	leader, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { leader.Close() })
	if err := unix.IoctlSetPointerInt(int(leader.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(leader.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("pseudo-terminal number: %v", err)
	}
	follower, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { follower.Close() })
	return follower
}

func TestIsTerminal(t *testing.T) {
	pty := openPTY(t)
	file, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	tests := []struct {
		name string
		r    any
		want bool
	}{
		{"pty", pty, true},
		{"file", file, false},
		{"reader", strings.NewReader("x"), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		r, _ := tt.r.(interface{ Read([]byte) (int, error) })
		if got := isTerminal(r); got != tt.want {
			t.Errorf("isTerminal(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRunStdin(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	pty := openPTY(t)
	tests := []struct {
		name    string
		stdin   any
		signals bool
		want    string
	}{
		// Reading the terminal from a background group would stop the
		// program; it gets the null device instead.
		{"terminal in own group", pty, true, "alloc: read 0 bytes from stdin (err=<nil>)"},
		{"reader in own group", strings.NewReader("hello"), true, "alloc: read 5 bytes from stdin (err=<nil>)"},
		{"reader", strings.NewReader("hello, world"), false, "alloc: read 12 bytes from stdin (err=<nil>)"},
		{"none", nil, true, "alloc: read 0 bytes from stdin (err=<nil>)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			// If the program blocked on the terminal, this ends the run
			// and the test fails on the missing output.
			safety := time.AfterFunc(30*time.Second, func() { cancel(errors.New("safety timeout")) })
			defer safety.Stop()
			var stdout bytes.Buffer
			s := Spec{Path: bin, Args: []string{"-alloc=0", "-stdin"}, Signals: tt.signals, Stdout: &stdout}
			if tt.stdin != nil {
				s.Stdin = tt.stdin.(interface{ Read([]byte) (int, error) })
			}
			res, err := Run(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Cleanup()
			if !strings.Contains(stdout.String(), tt.want) {
				t.Errorf("output %q lacks %q (run ended by %v)", stdout.String(), tt.want, context.Cause(ctx))
			}
		})
	}
}

// failingWriter fails every write, like a closed pipe.
type failingWriter struct{ calls int }

func (w *failingWriter) Write([]byte) (int, error) {
	w.calls++
	return 0, errors.New("broken pipe")
}

func TestRunFailingOutput(t *testing.T) {
	t.Parallel()
	var stdout, stderr failingWriter
	res, err := Run(context.Background(), Spec{Path: alloc(t), Args: []string{"-alloc=100ms"}, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Cleanup()
	if res.ExitCode != 0 {
		t.Errorf("ExitCode = %d, want 0", res.ExitCode)
	}
	if stdout.calls != 1 || stderr.calls != 1 {
		t.Errorf("failing writers called %d and %d times, want once each", stdout.calls, stderr.calls)
	}
	trace, err := os.ReadFile(res.GCTracePath)
	if err != nil {
		t.Fatal(err)
	}
	// The failing writer refused the program's first line; any gctrace
	// after it shows the file kept receiving. Only its start is certain:
	// the program may exit while the runtime prints the rest of a line.
	if !bytes.Contains(trace, []byte("\ngc ")) {
		t.Errorf("gctrace file lacks gctrace lines after the caller's stderr failed:\n%s", trace)
	}
}

func TestPassWriter(t *testing.T) {
	var out, file bytes.Buffer
	p := &passWriter{w: &out, file: &file}
	for _, s := range []string{"gc 1 @0.1s\n", "partial", " line\n"} {
		if n, err := p.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if want := "gc 1 @0.1s\npartial line\n"; out.String() != want || file.String() != want {
		t.Errorf("passed %q and kept %q, want %q for both", out.String(), file.String(), want)
	}
	broken := &failingWriter{}
	p = &passWriter{w: &out, file: broken}
	p.Write([]byte("a"))
	p.Write([]byte("b"))
	if p.fileErr == nil || broken.calls != 1 {
		t.Errorf("fileErr = %v after %d calls, want the first error and no retry", p.fileErr, broken.calls)
	}
}

func TestRunStartErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notExec := filepath.Join(dir, "notexec")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, []byte("\x00\x01 not a program"), 0o755)
	bin := ""
	if allocBin != "" {
		bin = allocBin
	} else {
		bin = garbage
	}
	tests := []struct {
		name   string
		spec   Spec
		want   string
		target error
	}{
		{"not found", Spec{Path: "gcdoctor-no-such-command"}, "run gcdoctor-no-such-command: executable file not found in $PATH", exec.ErrNotFound},
		{"missing file", Spec{Path: filepath.Join(dir, "missing")}, "run " + filepath.Join(dir, "missing") + ": no such file or directory", os.ErrNotExist},
		{"not executable", Spec{Path: notExec}, "run " + notExec + ": permission denied", os.ErrPermission},
		{"directory", Spec{Path: dir}, "run " + dir + ": is a directory", nil},
		{"bad format", Spec{Path: garbage}, "run " + garbage + ": exec format error", nil},
		{"bad dir", Spec{Path: bin, Dir: filepath.Join(dir, "nodir")}, "run " + bin + ": chdir " + filepath.Join(dir, "nodir") + ": no such file or directory", nil},
		{"empty", Spec{}, "run: no command given", nil},
		{"dir is a file", Spec{Path: bin, Dir: notExec}, "run " + bin + ": chdir " + notExec + ": not a directory", syscall.ENOTDIR},
		{"sampling too often", Spec{Path: bin, SampleEvery: time.Nanosecond}, "run " + bin + ": RSS sampling interval 1ns is shorter than the minimum of 10ms", nil},
		{"negative sampling", Spec{Path: bin, SampleEvery: -time.Second}, "run " + bin + ": negative RSS sampling interval -1s", nil},
		{"negative grace", Spec{Path: bin, Grace: -time.Second}, "run " + bin + ": negative grace period -1s", nil},
		{"long grace", Spec{Path: bin, Grace: time.Hour}, "run " + bin + ": grace period 1h0m0s is longer than the maximum of 10m0s", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bdir := filepath.Join(t.TempDir(), "bundle")
			w, err := bundle.Create(bdir)
			if err != nil {
				t.Fatal(err)
			}
			tt.spec.Out = w
			res, err := Run(context.Background(), tt.spec)
			if err == nil {
				res.Cleanup()
				t.Fatalf("Run succeeded, want %q", tt.want)
			}
			if res != nil {
				t.Errorf("Run returned a result with its error")
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q, want %q", err, tt.want)
			}
			if tt.target != nil && !errors.Is(err, tt.target) {
				t.Errorf("error %q does not wrap %v", err, tt.target)
			}
			if ents, _ := os.ReadDir(bdir); len(ents) != 0 {
				t.Errorf("failed start left %v in the bundle", ents)
			}
		})
	}
}

// errReader fails like a broken input stream.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("input stream broke") }

func TestRunIOError(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	dir := filepath.Join(t.TempDir(), "bundle")
	w, err := bundle.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Spec{Path: bin, Args: []string{"-alloc=0", "-stdin"}, Stdin: errReader{}, Out: w})
	if err == nil || err.Error() != "run "+bin+": input stream broke" {
		t.Errorf("error = %v, want the input failure", err)
	}
	if res == nil {
		t.Fatal("no Result with an I/O error after the program ran")
	}
	if res.ExitCode != 0 {
		t.Errorf("ExitCode = %d, want 0", res.ExitCode)
	}
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Meta() == nil || !b.Has(bundle.RSSFile) || !b.Has(bundle.GCTraceFile) {
		t.Errorf("evidence not saved after an I/O error: %q", b.Names())
	}
}

// TestRunEscalate checks that a program ignoring SIGINT and SIGTERM is
// still stopped: by a second SIGINT or SIGTERM at once, or at the end of
// the grace period that the first one starts. A Run that cannot stop it
// ends the test at the safety timeout of runUntilReady instead.
func TestRunEscalate(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	tests := []struct {
		name  string
		sigs  []os.Signal
		grace time.Duration
	}{
		{"second SIGINT", []os.Signal{syscall.SIGINT, syscall.SIGINT}, MaxGrace},
		{"SIGTERM then SIGINT", []os.Signal{syscall.SIGTERM, syscall.SIGINT}, MaxGrace},
		{"SIGINT then grace", []os.Signal{syscall.SIGINT}, 100 * time.Millisecond},
		{"SIGTERM then grace", []os.Signal{syscall.SIGTERM}, 100 * time.Millisecond},
		// SIGHUP is passed on but asks for no stop: the SIGINT after it is
		// a first request.
		{"SIGHUP then SIGINT then grace", []os.Signal{syscall.SIGHUP, syscall.SIGINT}, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		for _, group := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/group=%v", tt.name, group), func(t *testing.T) {
				t.Parallel()
				sigs := make(chan os.Signal, len(tt.sigs))
				s := Spec{Path: bin, Args: []string{"-alloc=0", "-ignore-stop"}, Signals: group, Grace: tt.grace}
				res, stdout := runUntilReady(t, s, sigs, func(context.CancelCauseFunc) {
					for _, sig := range tt.sigs {
						sigs <- sig
					}
				})
				if !res.Killed || !res.Signaled || res.ExitCode != 128+int(syscall.SIGKILL) {
					t.Errorf("Killed = %v, Signaled = %v, ExitCode = %d; want true, true, %d (output %q)", res.Killed, res.Signaled, res.ExitCode, 128+int(syscall.SIGKILL), stdout.String())
				}
			})
		}
	}
}

func TestRSSBuffer(t *testing.T) {
	b := rssBuffer{limit: 4, every: 10 * time.Millisecond}
	tests := []struct {
		add     int
		thinned bool
		want    []int // the samples kept, by the order they were added
		every   time.Duration
	}{
		{0, false, []int{0}, 10 * time.Millisecond},
		{1, false, []int{0, 1}, 10 * time.Millisecond},
		{2, false, []int{0, 1, 2}, 10 * time.Millisecond},
		{3, false, []int{0, 1, 2, 3}, 10 * time.Millisecond},
		{4, true, []int{0, 2, 4}, 20 * time.Millisecond},
		{5, false, []int{0, 2, 4, 5}, 20 * time.Millisecond},
		{6, true, []int{0, 4, 6}, 40 * time.Millisecond},
		{7, false, []int{0, 4, 6, 7}, 40 * time.Millisecond},
		{8, true, []int{0, 6, 8}, 80 * time.Millisecond},
	}
	for _, tt := range tests {
		thinned := b.add(bundle.RSSSample{Elapsed: time.Duration(tt.add), RSS: int64(tt.add)})
		var got []int
		for _, s := range b.samples {
			got = append(got, int(s.RSS))
		}
		if thinned != tt.thinned || !slices.Equal(got, tt.want) || b.every != tt.every {
			t.Errorf("after adding %d: thinned %v, samples %v, every %v; want %v, %v, %v", tt.add, thinned, got, b.every, tt.thinned, tt.want, tt.every)
		}
	}
}

// helper acts as a caller of Run, as gcdoctor run is, for the tests that
// need to kill that caller or close its standard output. It runs the test
// program named by GCDOCTOR_COLLECT_BIN, with its output on this process's
// standard output, and reports what Run returned on standard error.
func helper(mode string) int {
	args := map[string][]string{
		// Enough output to fill any pipe, so that the caller still
		// passes it on after the reader has gone.
		"stdout-closed": {"-alloc=100ms", "-lines=100000"},
		"killed":        {"-alloc=0", "-sleep"},
	}[mode]
	if args == nil {
		fmt.Fprintf(os.Stderr, "helper: unknown mode %q\n", mode)
		return 2
	}
	res, err := Run(context.Background(), Spec{Path: os.Getenv("GCDOCTOR_COLLECT_BIN"), Args: args, Stdout: os.Stdout, Signals: true})
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper: %v\n", err)
	}
	if res == nil {
		return 1
	}
	trace, err := os.ReadFile(res.GCTracePath)
	fmt.Fprintf(os.Stderr, "helper: exit=%d gctrace=%v\n", res.ExitCode, err == nil && bytes.Contains(trace, []byte("\ngc ")))
	// As gcdoctor run then prints its report: with standard output gone,
	// this may end the process by SIGPIPE before Cleanup.
	fmt.Println("helper: report")
	res.Cleanup()
	return 0
}

// startHelper starts the test binary as a helper in mode, running bin with
// tmp as its temporary directory and its standard output on the returned
// pipe. The helper is killed if the test outlives its deadline.
func startHelper(t *testing.T, mode, bin, tmp string) (*exec.Cmd, *os.File, *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "GCDOCTOR_COLLECT_BIN="+bin, "TMPDIR="+tmp)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	return cmd, r, &stderr
}

// TestRunStdoutClosed checks that a caller whose standard output is closed
// early, as by "gcdoctor run -- prog | head -1", is not killed by SIGPIPE
// during the run, still gathers the evidence, and leaves no temporary file
// whether or not it dies of SIGPIPE afterwards.
func TestRunStdoutClosed(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	tmp := t.TempDir()
	cmd, out, stderr := startHelper(t, "stdout-closed", bin, tmp)
	line, err := bufio.NewReader(out).ReadString('\n')
	out.Close()
	if err != nil || !strings.HasPrefix(line, "alloc: ") {
		t.Errorf("first line %q, %v", line, err)
	}
	err = cmd.Wait()
	t.Logf("caller ended with %v", cmd.ProcessState)
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); err != nil && !(ok && ws.Signaled() && ws.Signal() == syscall.SIGPIPE) {
		t.Errorf("caller failed: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr.String(), "helper: exit=0 gctrace=true\n") {
		t.Errorf("caller did not finish the run with its evidence; its stderr:\n%s", stderr)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

// TestRunCallerKilled checks that the program dies with the process that
// runs it, even one killed by SIGKILL with no chance to clean up, and that
// no temporary file outlives them.
func TestRunCallerKilled(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	tmp := t.TempDir()
	cmd, out, stderr := startHelper(t, "killed", bin, tmp)
	defer out.Close()
	pid := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "alloc: ready" {
		fmt.Sscanf(sc.Text(), "alloc: pid=%d", &pid)
	}
	if pid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the program did not report its pid; caller's stderr:\n%s", stderr)
	}
	proc, err := procfs.NewProc(pid)
	if err != nil {
		t.Fatal(err)
	}
	st, err := proc.Stat()
	if err != nil {
		t.Fatal(err)
	}
	started := st.Starttime
	// alive reports whether the program still runs: a zombie has died,
	// and a process with another start time reused the ID.
	alive := func() bool {
		st, err := proc.Stat()
		return err == nil && st.Starttime == started && st.State != "Z" && st.State != "X"
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for alive() {
		if time.Now().After(deadline) {
			unix.Kill(-pid, syscall.SIGKILL)
			t.Fatalf("program %d still runs 30 s after its caller was killed", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

// TestRunThreadExit checks that the program is not killed when threads of
// the caller end: the parent-death signal follows the thread that started
// the program, and Go ends a thread when a goroutine locked to it returns.
func TestRunThreadExit(t *testing.T) {
	t.Parallel()
	s := Spec{Path: alloc(t), Args: []string{"-alloc=0", "-wait", "-exit=6"}}
	res, _ := runUntilReady(t, s, nil, func(cancel context.CancelCauseFunc) {
		// Each of these goroutines takes an idle thread, possibly the
		// one that started the program, and ends it.
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() { runtime.LockOSThread() })
		}
		wg.Wait()
		cancel(errReady)
	})
	if res.ExitCode != 6 || res.Signaled {
		t.Errorf("ExitCode = %d, Signaled = %v; want 6, false: the program did not live to handle SIGTERM", res.ExitCode, res.Signaled)
	}
}

// TestRunHeapPeak checks that a run with a bundle tells the program where
// to write its heap profile at the peak, and records the file in meta.json
// when the program wrote it; a run without a bundle tells it nothing.
func TestRunHeapPeak(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	tests := []struct {
		name    string
		bundle  bool
		args    []string
		written bool
	}{
		{"watched", true, []string{"-alloc=300ms", "-heap-peak"}, true},
		{"not watched", true, []string{"-alloc=50ms"}, false},
		{"no bundle", false, []string{"-alloc=50ms", "-heap-peak"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w *bundle.Writer
			if tt.bundle {
				var err error
				if w, err = bundle.Create(filepath.Join(t.TempDir(), "b")); err != nil {
					t.Fatal(err)
				}
			}
			var stdout bytes.Buffer
			res, err := Run(context.Background(), Spec{Path: bin, Args: tt.args, Stdout: &stdout, Out: w})
			if err != nil {
				t.Fatal(err)
			}
			defer res.Cleanup()
			wantEnv := agent.HeapPeakEnv + "="
			if tt.bundle {
				wantEnv += w.Path(bundle.HeapFile)
			}
			if !strings.Contains(stdout.String(), "alloc: "+wantEnv+"\n") {
				t.Errorf("the program's environment lacks %s:\n%s", wantEnv, stdout.String())
			}
			if !tt.bundle {
				return
			}
			_, statErr := os.Stat(w.Path(bundle.HeapFile))
			if written := statErr == nil; written != tt.written {
				t.Errorf("heap.pb.gz written: %v, want %v", written, tt.written)
			}
			if listed := res.Meta.Files[bundle.HeapFile] != ""; listed != tt.written {
				t.Errorf("meta.json lists heap.pb.gz: %v, want %v", listed, tt.written)
			}
		})
	}
}
