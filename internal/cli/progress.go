package cli

import (
	"fmt"
	"io"
	"time"
)

// progress shows how far a long read has come, on a terminal only, and only
// once it has taken more than a second, so short runs stay quiet.
type progress struct {
	w     io.Writer
	name  string
	size  int64
	start time.Time
	shown bool
	tty   bool
}

func newProgress(w io.Writer, name string, size int64) *progress {
	return &progress{w: w, name: name, size: size, start: time.Now(), tty: isTerminal(w)}
}

func (p *progress) update(n int64) {
	if !p.tty || time.Since(p.start) < time.Second {
		return
	}
	p.shown = true
	if p.size > 0 {
		fmt.Fprintf(p.w, "\rreading %s: %d / %d MB (%d%%)", p.name, n>>20, p.size>>20, n*100/p.size)
	} else {
		fmt.Fprintf(p.w, "\rreading %s: %d MB", p.name, n>>20)
	}
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprintf(p.w, "\r\x1b[K")
	}
}

// say shows what a long task is doing, in place of the last message, once
// it has taken more than a second.
func (p *progress) say(what string) {
	if !p.tty || time.Since(p.start) < time.Second {
		return
	}
	p.shown = true
	fmt.Fprintf(p.w, "\r\x1b[K%s: %s", p.name, what)
}
