package collect

import (
	"bytes"
	"io"
	"sync"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// traceLog is the gctrace log of a run. Several sources write to it at
// once (the program's standard error, the runtime's lines picked out of its
// standard output, the tools the go command runs), so it takes whole lines
// only: each write is one or more complete lines, except the very last
// piece of standard error, which may end without one.
type traceLog struct {
	mu  sync.Mutex
	w   io.Writer
	err error // the first write error; later writes are dropped
}

// write appends lines to the log.
func (l *traceLog) write(lines []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = l.w.Write(lines)
	}
}

// failure returns the first error writing the log.
func (l *traceLog) failure() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// maxPending bounds the bytes of an unfinished line a lineWriter holds,
// far more than any gctrace line (the longest is under 300 bytes). A longer
// line is passed on in pieces, each ended by a line end of its own, so that
// no other source's line can land inside it; the gctrace reader skips such
// lines anyway.
const maxPending = 64 << 10

// lineWriter cuts a stream into lines and passes each one, with its "\n",
// to emit. It never fails, so that os/exec goes on copying the program's
// output.
type lineWriter struct {
	emit    func(line []byte)
	pending []byte
}

// Write passes on the complete lines of p and keeps the rest for later.
func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := maxPending - len(w.pending)
			if len(p) <= room {
				w.pending = append(w.pending, p...)
				break
			}
			w.pending = append(append(w.pending, p[:room]...), '\n')
			w.emit(w.pending)
			w.pending = w.pending[:0]
			p = p[room:]
			continue
		}
		line := p[:i+1]
		if len(w.pending) > 0 {
			w.pending = append(w.pending, line...)
			line = w.pending
		}
		w.emit(line)
		w.pending = w.pending[:0]
		p = p[i+1:]
	}
	return n, nil
}

// flush passes on the last line when the stream ended without a line end,
// as it is: a gctrace line cut short there tells that the program was
// stopped while it wrote.
func (w *lineWriter) flush() {
	if len(w.pending) > 0 {
		w.emit(w.pending)
		w.pending = w.pending[:0]
	}
}

// withEOL returns line ended by "\n", copying it to add one.
func withEOL(line []byte) []byte {
	if len(line) > 0 && line[len(line)-1] == '\n' {
		return line
	}
	return append(line[:len(line):len(line)], '\n')
}

// trimEOL returns line without its line end.
func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// traceFilter picks out of the program's standard output the lines its
// runtime's GC tracing wrote there: go test, for one, passes the test
// binary's standard error on to its own standard output. The runtime writes
// each gctrace line in many small pieces, so output of the program's own
// that comes at the same time can cut one in two; the line after a cut
// cycle line is its rest, and is kept too, for the gctrace reader to stitch
// back on. Anything that merely looks like gctrace output is kept as well,
// such as old lines a program prints again; the gctrace reader leaves out
// those that end after the run did (gctrace.Options.RunS).
type traceFilter struct {
	log *traceLog
	cut bool // the last line was a cycle line cut short
}

// line keeps line in the log if it is gctrace output.
func (f *traceFilter) line(line []byte) {
	k := gctrace.ClassifyLine(trimEOL(line), nil)
	if gctrace.IsTrace(k) || f.cut {
		f.log.write(withEOL(line))
	}
	f.cut = k == gctrace.KindError
}

// replayFilter keeps out of the log the gctrace lines the go command
// replays from its build cache. The go command caches the output of every
// compile and link, and prints it again, after a "# pkg" header, whenever
// it reuses the result; a compile run under GODEBUG=gctrace=1 without
// gcdoctor's wrapper (by an earlier version of gcdoctor, or by hand) left
// its gctrace lines in that output. Under Run the tools' own lines never
// reach the go command (see toolexec), so a header followed by gctrace
// lines on its standard error is such a replay. The replayed block is the
// header and the lines that follow it as one process writes them: cycles
// numbered one after the other, with the scavenger, pacer and scan lines between
// them. The go command's own lines, which may come right after, do not
// continue the numbering, and end the block.
type replayFilter struct {
	emit     func(line []byte)
	held     []byte // a header, until the next line tells what follows it
	dropping bool
	last     int // number of the last cycle dropped in the block, 0 if none
	dropped  int // gctrace lines dropped
}

// line passes line on unless it belongs to a replayed block.
func (f *replayFilter) line(line []byte) {
	var cy gctrace.Cycle
	k := gctrace.ClassifyLine(trimEOL(line), &cy)
	if len(f.held) > 0 {
		if gctrace.IsTrace(k) && k != gctrace.KindError {
			f.dropping, f.last = true, 0
		} else {
			f.emit(f.held)
		}
		f.held = f.held[:0]
	}
	if f.dropping {
		if f.inBlock(k, &cy) {
			f.dropped++
			return
		}
		f.dropping = false
	}
	if k == gctrace.KindHeader {
		f.held = append(f.held, withEOL(line)...)
		return
	}
	f.emit(line)
}

// inBlock reports whether a line of kind k, and cycle cy, continues the
// replayed block.
func (f *replayFilter) inBlock(k gctrace.Kind, cy *gctrace.Cycle) bool {
	switch k {
	case gctrace.KindCycle:
		if f.last != 0 && cy.Num != f.last+1 {
			return false
		}
		f.last = cy.Num
		return true
	case gctrace.KindForced, gctrace.KindScavenge, gctrace.KindPacer, gctrace.KindScan:
		return true
	}
	return false
}

// flush passes on a header still held at the end of the stream.
func (f *replayFilter) flush() {
	if len(f.held) > 0 {
		f.emit(f.held)
		f.held = f.held[:0]
	}
}
