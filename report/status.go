package report

import (
	"fmt"
	"io"
	"time"

	"github.com/gcdoctor/gcdoctor/internal/terminal"
)

// Status is a one-line progress display for a long task: shown on a
// terminal only, and only once the task has taken more than a second, so
// short runs, logs and tests stay clean. Each message replaces the last;
// Done clears the line.
type Status struct {
	w     io.Writer
	name  string
	size  int64
	start time.Time
	shown bool
	tty   bool
}

// NewStatus starts a status line on w for the task name; size is the
// bytes it reads, 0 when unknown or not a read. tty says whether w is a
// terminal: nothing is shown otherwise.
func NewStatus(w io.Writer, name string, size int64, tty bool) *Status {
	return &Status{w: w, name: terminal.Escape(name), size: size, start: time.Now(), tty: tty}
}

func (s *Status) show(format string, args ...any) {
	if !s.tty || time.Since(s.start) < time.Second {
		return
	}
	s.shown = true
	fmt.Fprintf(s.w, "\r\x1b[K"+format, args...)
}

// Read shows how many of the task's bytes have been read.
func (s *Status) Read(n int64) {
	if s.size > 0 {
		s.show("reading %s: %d / %d MB (%d%%)", s.name, n>>20, s.size>>20, n*100/s.size)
		return
	}
	s.show("reading %s: %d MB", s.name, n>>20)
}

// Say shows what the task is doing.
func (s *Status) Say(what string) {
	s.show("%s: %s", s.name, terminal.Escape(what))
}

// Run shows which of total runs is under way, and the setting it runs
// with (sweep, bench); the last run clears the line.
func (s *Status) Run(done, total int, setting fmt.Stringer) {
	if done == total {
		s.Done()
		return
	}
	s.start = time.Time{} // runs are long: show the first at once
	s.show("%s: run %d of %d (%s)", s.name, done+1, total, setting)
}

// Done clears the line if anything was shown.
func (s *Status) Done() {
	if s.shown {
		fmt.Fprintf(s.w, "\r\x1b[K")
		s.shown = false
	}
}
