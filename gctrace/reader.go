package gctrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Kind classifies a line of input.
type Kind uint8

// The kinds of line a Reader reports.
const (
	KindText     Kind = iota // anything else: program output, comments
	KindBlank                // an empty or all-space line
	KindCycle                // a GC cycle line; see Record.Cycle
	KindForced               // the runtime's "GC forced" line before a periodic GC
	KindScavenge             // a scavenger line; see Record.Scavenge
	KindPacer                // a "pacer:" line from GODEBUG=gcpacertrace=1
	KindHeader               // a "# pkg" header written by the go command
	KindScan                 // a "scan:" line from GODEBUG=gctrace=2; see Record.Scan
	KindError                // a cycle or scan line that could not be parsed; see Record.Err
)

var kindNames = [...]string{"text", "blank", "cycle", "gc-forced", "scavenge", "pacer", "header", "scan", "error"}

// String returns the kind's lower-case name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Record is one classified line of input.
//
// A Reader reuses its Record, Cycle, Scavenge and Scan, and Text points into the
// Reader's buffer: all are valid only until the next call to Scan. Copy
// what must outlive it.
type Record struct {
	Kind     Kind
	Line     int          // 1-based line number
	Text     []byte       // the whole line, without the line terminator
	Prefix   []byte       // text before the recognised content (a log prefix), if any
	Process  string       // process tag found in Prefix, "" when none
	Cycle    *Cycle       // for KindCycle
	Scavenge *Scavenge    // for KindScavenge
	Scan     *Scan        // for KindScan
	Err      *SyntaxError // for KindError
}

// Reader reads gctrace output line by line. Only I/O errors stop it: a bad
// line is reported as a Record of KindError and reading goes on.
//
// Lines end with "\n", "\r\n", or, in an input whose first line ends so, a
// lone "\r". A UTF-8 byte order mark at the start is ignored. A line longer
// than 64 KiB is reported as a Record of KindError holding its first 64 KiB
// and skipped; an input in which a line runs on for 64 MiB without an end
// stops the Reader with an error (see Err).
type Reader struct {
	name     string
	lr       *lineReader
	line     int
	rec      Record
	cycle    Cycle
	scav     Scavenge
	scan     Scan
	serr     SyntaxError
	pending  []byte // a line read ahead while trying to stitch, not yet classified
	pendEOF  bool
	pendLong bool
	hasPend  bool
	stitch   []byte
	cur      []byte
	err      error
	done     bool
	lastProc string
	procs    map[string]string // interned process tags
}

// NewReader returns a Reader that reads from r. name is used in error
// positions (file:line).
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, lr: newLineReader(r)}
}

// Name returns the input name given to NewReader.
func (r *Reader) Name() string { return r.name }

// Offset returns the number of input bytes consumed so far.
func (r *Reader) Offset() int64 { return r.lr.n }

// Scan advances to the next line and reports whether there is one. After it
// returns false, Err reports any I/O error.
func (r *Reader) Scan() bool {
	if r.done {
		return false
	}
	var line []byte
	var eof, long bool
	var err error
	if r.hasPend {
		line, eof, long = r.pending, r.pendEOF, r.pendLong
		r.hasPend = false
	} else {
		line, eof, long, err = r.lr.next()
	}
	if err != nil {
		r.fail(err)
		return false
	}
	if line == nil && eof {
		r.done = true
		r.err = r.lr.failure()
		return false
	}
	r.line++
	if long {
		r.tooLong(line)
	} else {
		r.classify(line, eof)
	}
	if eof {
		r.done = true
		r.err = r.lr.failure()
	}
	return true
}

// Record returns the current line. See Record for how long it stays valid.
func (r *Reader) Record() *Record { return &r.rec }

// Err returns the error that stopped the Reader, or nil. Reaching the end of
// the input is not an error. It is an I/O error, or a *SyntaxError for a
// line that did not end within 64 MiB.
func (r *Reader) Err() error { return r.err }

// fail stops the Reader with err, positioned at the line being read when
// it is the input's fault.
func (r *Reader) fail(err error) {
	if errors.Is(err, errNoLineEnd) {
		err = &SyntaxError{FileName: r.name, Line: r.line + 1, Msg: err.Error()}
	}
	r.err = err
	r.done = true
}

// tooLong reports a line longer than maxLine, of which head is the start.
func (r *Reader) tooLong(head []byte) {
	r.serr = SyntaxError{FileName: r.name, Line: r.line, Msg: fmt.Sprintf("line longer than %d KiB: skipped", maxLine>>10)}
	r.rec = Record{Kind: KindError, Line: r.line, Text: head, Err: &r.serr}
}

var (
	bForced = []byte("GC forced")
	bScvg   = []byte("scvg")
	bScav   = []byte("scav ")
	bPacer  = []byte("pacer: ")
	bScan   = []byte("scan: ")
)

// classify fills r.rec for one line.
func (r *Reader) classify(line []byte, eof bool) {
	rec := &r.rec
	*rec = Record{Kind: KindText, Line: r.line, Text: line}
	if isBlank(line) {
		rec.Kind = KindBlank
		return
	}
	if start, ok := findCycle(line); ok {
		rec.Prefix = line[:start]
		rec.Process = r.process(rec.Prefix)
		r.cycle = Cycle{Line: r.line, Process: rec.Process}
		col, msg := parseCycle(line[start:], &r.cycle)
		if msg == "" {
			rec.Kind = KindCycle
			rec.Cycle = &r.cycle
			return
		}
		if !eof {
			// Reading ahead reuses the buffer line points into: keep a copy.
			r.cur = append(r.cur[:0], line...)
			line = r.cur
			rec.Text, rec.Prefix = line, line[:start]
		}
		if !eof && r.tryStitch(line[start:start+col], &r.cycle) {
			rec.Kind = KindCycle
			rec.Cycle = &r.cycle
			return
		}
		r.serr = SyntaxError{FileName: r.name, Line: r.line, Col: start + col + 1, Msg: msg}
		if eof || col >= len(line)-start {
			// The line stops where the parser needed more: the input was cut.
			r.serr.Truncated = eof
			if eof {
				r.serr.Msg = "truncated gc line at end of input: " + msg
			}
		}
		rec.Kind = KindError
		rec.Err = &r.serr
		return
	}
	if line[0] == '#' && len(line) > 2 && line[1] == ' ' {
		rec.Kind = KindHeader
		return
	}
	if i := bytes.Index(line, bForced); i >= 0 && isBlank(line[i+len(bForced):]) {
		rec.Kind = KindForced
		rec.Prefix = line[:i]
		rec.Process = r.process(rec.Prefix)
		return
	}
	if i := bytes.Index(line, bPacer); i >= 0 {
		rec.Kind = KindPacer
		rec.Prefix = line[:i]
		rec.Process = r.process(rec.Prefix)
		return
	}
	if i, ok := findScan(line); ok {
		rec.Prefix = line[:i]
		rec.Process = r.process(rec.Prefix)
		r.scan = Scan{Line: r.line}
		if col, msg := parseScan(line[i:], &r.scan); msg != "" {
			r.serr = SyntaxError{FileName: r.name, Line: r.line, Col: i + col + 1, Msg: msg}
			if eof && i+col >= len(line) {
				r.serr.Truncated = true
				r.serr.Msg = "truncated scan line at end of input: " + msg
			}
			rec.Kind = KindError
			rec.Err = &r.serr
			return
		}
		rec.Kind = KindScan
		rec.Scan = &r.scan
		return
	}
	if i := bytes.Index(line, bScvg); i >= 0 && (i == 0 || line[i-1] == ' ') {
		r.scav = Scavenge{Line: r.line}
		if parseScvg(line[i:], &r.scav) {
			rec.Kind = KindScavenge
			rec.Scavenge = &r.scav
			rec.Prefix = line[:i]
			rec.Process = r.process(rec.Prefix)
		}
		return
	}
	if i := bytes.Index(line, bScav); i >= 0 && (i == 0 || line[i-1] == ' ') {
		r.scav = Scavenge{Line: r.line}
		if parseScav(line[i:], &r.scav) {
			rec.Kind = KindScavenge
			rec.Scavenge = &r.scav
			rec.Prefix = line[:i]
			rec.Process = r.process(rec.Prefix)
		}
	}
}

// tryStitch handles a cycle line that another writer to the same stderr cut
// in two: the program's own output lands in the middle of the runtime's line
// and the rest of the cycle continues on the next line. head is the part of
// the cycle line that parsed. If head plus the next line parse as one cycle,
// tryStitch fills cy and consumes the next line; otherwise it keeps the next
// line for the following Scan.
func (r *Reader) tryStitch(head []byte, cy *Cycle) bool {
	if len(head) < 8 {
		return false
	}
	r.stitch = append(r.stitch[:0], head...)
	next, eof, long, err := r.lr.next()
	if err != nil {
		r.fail(err)
		return false
	}
	if next == nil && eof {
		return false
	}
	if _, ok := findCycle(next); !ok && !long {
		r.stitch = append(r.stitch, next...)
		saved := *cy
		if _, msg := parseCycle(r.stitch, cy); msg == "" {
			r.line++ // the continuation line is consumed
			if eof {
				r.done = true
				r.err = r.lr.failure()
			}
			return true
		}
		*cy = saved
	}
	r.pending = append(r.pending[:0], next...)
	r.pendEOF, r.pendLong = eof, long
	r.hasPend = true
	return false
}

// findScan reports where a "scan:" line of GODEBUG=gctrace=2 starts in
// line: "scan: total " or "scan: class " at the start of the line or after
// a log prefix. Other lines that mention "scan: " are program output.
func findScan(line []byte) (int, bool) {
	i := bytes.Index(line, bScan)
	if i < 0 || (i > 0 && line[i-1] != ' ' && line[i-1] != '\t' && line[i-1] != ']' && line[i-1] != ':' && line[i-1] != '|') {
		return 0, false
	}
	rest := line[i+len(bScan):]
	if !bytes.HasPrefix(rest, []byte("total ")) && !bytes.HasPrefix(rest, []byte("class ")) {
		return 0, false
	}
	return i, true
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v' {
			return false
		}
	}
	return true
}

// findCycle reports where a cycle line starts in line: "gc " followed by a
// number (optionally "#") and " @", or "gc" immediately followed by a number
// and "(" in the pre-1.5 format. The start must begin the line or follow a
// space, tab, ']' or ':' so that words such as "logc 1 @" do not match.
func findCycle(line []byte) (int, bool) {
	for i := 0; i+3 < len(line); {
		j := bytes.Index(line[i:], []byte("gc"))
		if j < 0 {
			return 0, false
		}
		s := i + j
		i = s + 2
		if s > 0 {
			switch line[s-1] {
			case ' ', '\t', ']', ':', '|', '>':
			default:
				continue
			}
		}
		rest := line[s+2:]
		if len(rest) > 0 && isDigit(rest[0]) {
			// gcN(P): pre-1.5
			k := 0
			for k < len(rest) && isDigit(rest[k]) {
				k++
			}
			if k < len(rest) && rest[k] == '(' {
				return s, true
			}
			continue
		}
		if len(rest) < 3 || rest[0] != ' ' {
			continue
		}
		rest = rest[1:]
		if rest[0] == '#' {
			rest = rest[1:]
		}
		k := 0
		for k < len(rest) && isDigit(rest[k]) {
			k++
		}
		if k > 0 && (k == len(rest) || rest[k] == ' ') {
			// "gc N" then either " @" or the end of a cut line.
			if k == len(rest) || (k+1 < len(rest) && rest[k+1] == '@') || k+1 == len(rest) {
				return s, true
			}
		}
	}
	return 0, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// process extracts a process tag from a log prefix and interns it, so a
// long log does not allocate one string per line.
//
// Recognised: journald and syslog "name[pid]:", docker compose "name |",
// and kubectl --prefix "[pod/name/container]".
func (r *Reader) process(prefix []byte) string {
	tag := processTag(prefix)
	if len(tag) == 0 || len(tag) > maxTag {
		return ""
	}
	if string(tag) == r.lastProc {
		return r.lastProc
	}
	if r.procs == nil {
		r.procs = make(map[string]string)
	}
	s, ok := r.procs[string(tag)]
	if !ok {
		if len(r.procs) >= 4096 {
			// Too many distinct tags to be process names; ignore them.
			return ""
		}
		s = string(tag)
		r.procs[s] = s
	}
	r.lastProc = s
	return s
}

// maxTag bounds the length of a process tag: real ones are a name and a
// pid, and a longer one is more likely program output than a log prefix.
const maxTag = 256

func processTag(p []byte) []byte {
	p = bytes.TrimRight(p, " \t")
	if len(p) == 0 {
		return nil
	}
	// name[pid]:
	if p[len(p)-1] == ':' {
		q := p[:len(p)-1]
		if n := len(q); n > 0 && q[n-1] == ']' {
			if o := bytes.LastIndexByte(q, '['); o > 0 {
				pid := q[o+1 : n-1]
				if len(pid) > 0 && allDigits(pid) {
					s := bytes.LastIndexAny(q[:o], " \t")
					return q[s+1:]
				}
			}
		}
		return nil
	}
	// docker compose: "name  |"
	if p[len(p)-1] == '|' {
		q := bytes.TrimRight(p[:len(p)-1], " \t")
		s := bytes.LastIndexAny(q, " \t")
		return q[s+1:]
	}
	// kubectl logs --prefix: "[pod/name/container]"
	if p[0] == '[' && p[len(p)-1] == ']' && bytes.IndexByte(p, '/') > 0 {
		return p
	}
	return nil
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}
