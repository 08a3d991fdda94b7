package collect

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/gcdoctor/gcdoctor/bundle"
)

// Defaults for the zero values of Spec fields, and the bounds Run accepts.
const (
	// DefaultSampleEvery is the RSS sampling interval used when
	// Spec.SampleEvery is zero: often enough to see the sawtooth of a heap
	// that is collected a few times a second, cheap enough not to disturb
	// the program.
	DefaultSampleEvery = 100 * time.Millisecond
	// MinSampleEvery is the shortest RSS sampling interval Run accepts:
	// each sample reads /proc, and sampling much faster would cost more
	// CPU than the program it measures while showing nothing more of a
	// heap the collector changes at most a few hundred times a second.
	MinSampleEvery = 10 * time.Millisecond
	// MaxRSSSamples bounds the RSS samples a run keeps, whatever its
	// length. When they are all taken, every other one is dropped and the
	// interval doubles, so that a long run is still covered from start to
	// end, more coarsely.
	MaxRSSSamples = 1 << 16
	// DefaultGrace is how long a program has to exit after it is asked to
	// stop, by a forwarded SIGINT or SIGTERM or by the cancellation of the
	// context, before it is killed, when Spec.Grace is zero.
	DefaultGrace = 10 * time.Second
	// MaxGrace is the longest Spec.Grace Run accepts.
	MaxGrace = 10 * time.Minute
)

// Spec describes a program to run and where to put the evidence.
type Spec struct {
	// Path is the program to run. A name without a slash is looked up in
	// PATH; a relative path is resolved against the current directory, not
	// Dir, so that it means what it meant on the command line.
	Path string
	// Args are the program's arguments, not including its name.
	Args []string
	// Env is the program's environment; nil means os.Environ(). In both
	// cases gctrace=1 is added to GODEBUG. For the go command, GOFLAGS
	// also gets a -toolexec that runs the tools under the calling binary,
	// in front of the user's own, and -count=1 unless it sets -count (see
	// Run); a -toolexec on the go command line is refused, since it would
	// replace that one.
	Env []string
	// Dir is the program's working directory; "" means the current one.
	Dir string
	// Stdin is the program's standard input; nil means the null device.
	// When Signals is set and Stdin is a terminal, the program gets the
	// null device instead: it runs in a background process group, and a
	// background process that reads its terminal is stopped by SIGTTIN,
	// which would hang the run.
	Stdin io.Reader
	// Stdout and Stderr receive the program's output as it arrives,
	// unchanged; nil discards it. A writer that fails stops receiving output, but the run
	// continues so that the evidence is still gathered. The program never
	// gets these writers directly, even when they are files, so it cannot
	// be stopped for writing to a terminal from the background.
	Stdout, Stderr io.Writer
	// Out is the bundle that receives gctrace.log, rss.csv and meta.json;
	// nil means no bundle.
	Out *bundle.Writer
	// SampleEvery is the interval between RSS samples; zero means
	// DefaultSampleEvery. Run rejects an interval shorter than
	// MinSampleEvery, and lengthens it when a long run would take more
	// than MaxRSSSamples samples.
	SampleEvery time.Duration
	// Signals makes Run forward SIGINT, SIGTERM, SIGHUP and SIGQUIT to the
	// program while it runs; the caller's process is not stopped by them
	// meanwhile. The program then runs in its own process group, so that a
	// Ctrl-C at the terminal reaches only Run, which passes it on exactly
	// once, to the whole group as a terminal would, so that a wrapper such
	// as "go run" and the program it starts both get it. A program that
	// does not exit within Grace of the first SIGINT or SIGTERM, or when a
	// second one comes (a second Ctrl-C), is killed with its group by
	// SIGKILL. Without Signals the program stays in the caller's process
	// group and receives terminal signals directly.
	Signals bool
	// Grace is how long the program has to exit after it is asked to stop,
	// by the first forwarded SIGINT or SIGTERM or by the SIGTERM sent when
	// ctx is cancelled, before it gets SIGKILL; zero means DefaultGrace,
	// and more than MaxGrace is rejected. It also bounds how long Run
	// waits, after the program exits, for processes it left behind to
	// close its output.
	Grace time.Duration
	// ToolVersion is recorded as Meta.ToolVersion.
	ToolVersion string
}

// Result describes a finished run.
type Result struct {
	// ExitCode is the program's exit status, or 128 plus the signal number
	// when a signal killed it, as a shell reports it.
	ExitCode int
	// Signaled reports whether a signal killed the program.
	Signaled bool
	// Start is when the program was started.
	Start time.Time
	// Duration is how long the program ran.
	Duration time.Duration
	// CPU is the user plus system CPU time of the program and of the
	// processes it waited for (the rusage the kernel reports when the
	// program is reaped); negative when it is not known.
	CPU time.Duration
	// Killed reports whether Run killed the program with SIGKILL because
	// it did not exit within Spec.Grace of being asked to stop, or because
	// a second SIGINT or SIGTERM came.
	Killed bool
	// PeakRSS is the largest resident set size of the program in bytes:
	// the kernel's high-water mark when it can be trusted, else the largest
	// sample.
	PeakRSS int64
	// RSS holds the resident set size samples.
	RSS []bundle.RSSSample
	// Host holds the samples of the machine's CPU contention, taken
	// beside the RSS samples.
	Host []bundle.HostSample
	// SampleEvery is the interval between the RSS samples: Spec.SampleEvery,
	// or a multiple of it when the run was too long for MaxRSSSamples.
	SampleEvery time.Duration
	// GCTracePath is the file holding the program's standard error, with
	// its gctrace lines, the gctrace lines of its standard output and, for
	// the go command, those of its tools (see Run): gctrace.log in the
	// bundle or, when there is no bundle, a temporary file that stays
	// readable by this path until Cleanup. The temporary file is removed from its directory as soon as
	// it is made, so that nothing is left behind however the process ends,
	// even by SIGKILL or SIGPIPE; the path then names its descriptor under
	// /proc/self/fd and is good only in this process, until Cleanup.
	GCTracePath string
	// GoVersion is the Go version that built the program, "" when it is
	// not a Go binary.
	GoVersion string
	// Replayed counts the gctrace lines left out of GCTracePath because
	// the go command replayed them from its build cache: they were
	// written by compiles of an earlier run under GODEBUG=gctrace=1, not
	// by this one. They still reach Spec.Stderr, as the go command
	// printed them; "go clean -cache" removes them for good.
	Replayed int
	// Meta is the description of the run, as written to meta.json when
	// there is a bundle.
	Meta *bundle.Meta

	// temp is the temporary gctrace file, open so that it lives on after
	// its name is removed; nil with a bundle.
	temp *tempFile
}

// Cleanup removes the temporary gctrace file made when Spec.Out is nil; the
// caller calls it once done parsing GCTracePath. Evidence in a bundle is
// left alone.
func (r *Result) Cleanup() error {
	t := r.temp
	if t == nil {
		return nil
	}
	r.temp = nil
	return t.remove()
}

// validate checks the durations in s, which may come from a command line.
func (s *Spec) validate() error {
	switch {
	case s.SampleEvery < 0:
		return fmt.Errorf("run %s: negative RSS sampling interval %v", s.Path, s.SampleEvery)
	case s.SampleEvery > 0 && s.SampleEvery < MinSampleEvery:
		return fmt.Errorf("run %s: RSS sampling interval %v is shorter than the minimum of %v", s.Path, s.SampleEvery, MinSampleEvery)
	case s.Grace < 0:
		return fmt.Errorf("run %s: negative grace period %v", s.Path, s.Grace)
	case s.Grace > MaxGrace:
		return fmt.Errorf("run %s: grace period %v is longer than the maximum of %v", s.Path, s.Grace, MaxGrace)
	}
	return nil
}

// tempFile is a temporary file that Result.Cleanup removes.
type tempFile struct {
	f *os.File
	// name is the file's name, "" when it was removed from its directory
	// at once and lives only as long as f is open.
	name string
	// path opens the file: its name, or its descriptor under /proc.
	path string
}

// remove closes the file and removes its name if it still has one.
func (t *tempFile) remove() error {
	err := t.f.Close()
	if t.name != "" {
		if rerr := os.Remove(t.name); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}
