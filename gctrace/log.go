package gctrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gcdoctor/gcdoctor/internal/plural"
)

// Options tune Parse. The zero value is ready to use.
type Options struct {
	// GOGC is the program's GOGC, used to recognise cycles at the minimum
	// heap (4 MiB × GOGC/100). Zero means unknown: 100 is assumed.
	GOGC int
	// KeepCycles keeps every cycle in Segment.Cycles (for charts and
	// exports), up to MaxCycles over the whole Log. Summaries always see
	// every cycle whether or not they are kept.
	KeepCycles bool
	// MaxCycles bounds the cycles kept when KeepCycles is set: 100000
	// (about 25 MB) when zero, at most MaxCyclesLimit. The budget is
	// shared by all segments in input order, so a log of more cycles keeps
	// those of its first segments (see Segment.Cycles).
	MaxCycles int
	// MaxSegments bounds the segments kept in Log.Segments (default 10000);
	// cycles of later segments are counted in Log.SegmentsDropped only.
	MaxSegments int
	// MaxDecompressed bounds the bytes of text a gzip-compressed input may
	// expand to (default DefaultMaxDecompressed); beyond it Add stops with
	// an error and keeps what it read.
	MaxDecompressed int64
	// RunS is how long the run that wrote the log lasted, in seconds, when
	// the log is the output of one run (gcdoctor run); zero means unknown.
	// Every process of such a run started after the run did, so a cycle
	// that ends more than RunS after its process started was not collected
	// during the run: it is old output printed again, such as the go
	// command replaying a compile's output from its build cache. The whole
	// segment of such a cycle is left out of Segments and counted in
	// Log.Replayed.
	RunS float64
}

// replaySlackS is how far, in seconds, a cycle may seem to end after the
// run without being taken for a replay. The runtime truncates the times it
// prints, so a cycle of the run never seems to end late; the allowance only
// absorbs rounding in the run's own length.
const replaySlackS = 0.005

// MaxCyclesLimit is the largest Options.MaxCycles honoured, about 500 MB
// of cycles.
const MaxCyclesLimit = 2 << 20

func (o *Options) minHeapMB() int64 {
	g := o.GOGC
	if g <= 0 {
		g = 100
	}
	// The runtime's floor is 4 MiB × GOGC/100; the printed goal is rounded
	// down to whole MiB, so a goal at the floor prints as floor or floor+0.
	return int64(math.Ceil(4 * float64(g) / 100))
}

// InputStats counts what a Reader found in one input.
type InputStats struct {
	Name  string
	Lines int
	Bytes int64 // bytes of text read, after decompression
	// Encoding names what was undone to read the input as text: "" for
	// plain text (UTF-8 or ASCII), else EncodingGzip, a UTF-16 encoding,
	// or both joined by "+", as in "gzip+utf-16le".
	Encoding string
	Kinds    [KindError + 1]int // lines per Kind
	Errors   []*SyntaxError     // first errors, at most maxErrors
	NErrors  int                // all syntax errors
	Partial  bool               // the input ended inside a cycle line
	Binary   bool               // the input holds NUL bytes: not a text log
	Segments int                // segments that started in this input
}

const maxErrors = 20

// Log is the result of Parse: every input's statistics and the segments
// found in them.
type Log struct {
	Inputs          []InputStats
	Segments        []*Segment
	CyclesDropped   int // cycles of listed segments not kept in Segment.Cycles (Options.MaxCycles)
	SegmentsDropped int // segments not kept in Segments (Options.MaxSegments)
	// Replayed counts the segments left out because a cycle of theirs ends
	// after the run did (Options.RunS), and ReplayedCycles their cycles.
	Replayed       int
	ReplayedCycles int
	opts           Options
}

// ForgetCycles lets go of every segment's cycles, kept for a model or a
// chart, once they are no longer wanted (a JSON report without --cycles);
// the summaries stay.
func (l *Log) ForgetCycles() {
	for _, s := range l.Segments {
		s.Cycles = nil
	}
}

// dropReplayed removes from Segments those found to be replayed output
// (Options.RunS) while reading the input st describes, and renumbers the
// rest.
func (l *Log) dropReplayed(st *InputStats) {
	kept := l.Segments[:0]
	for _, s := range l.Segments {
		if s.replayed {
			l.Replayed++
			l.ReplayedCycles += s.Summary.Cycles
			st.Segments--
			continue
		}
		s.Index = len(kept)
		kept = append(kept, s)
	}
	clear(l.Segments[len(kept):])
	l.Segments = kept
}

// addSegment lists s in the Log and reports whether there was room.
func (l *Log) addSegment(s *Segment) bool {
	if len(l.Segments) >= l.opts.MaxSegments {
		l.SegmentsDropped++
		return false
	}
	s.Index = len(l.Segments)
	l.Segments = append(l.Segments, s)
	if n := len(l.Inputs); n > 0 {
		l.Inputs[n-1].Segments++
	}
	return true
}

// Cycles returns the number of cycles in all segments.
func (l *Log) Cycles() int {
	n := 0
	for _, s := range l.Segments {
		n += s.Summary.Cycles
	}
	return n
}

// Partial reports whether any input ended inside a cycle line.
func (l *Log) Partial() bool {
	for _, in := range l.Inputs {
		if in.Partial {
			return true
		}
	}
	return false
}

// Parser reads one or more inputs into a Log. Segments never span inputs.
type Parser struct {
	log Log
}

// NewParser returns a Parser with the given options.
func NewParser(opts Options) *Parser {
	if opts.MaxCycles <= 0 {
		opts.MaxCycles = 100000
	}
	opts.MaxCycles = min(opts.MaxCycles, MaxCyclesLimit)
	if opts.MaxDecompressed <= 0 {
		opts.MaxDecompressed = DefaultMaxDecompressed
	}
	if opts.MaxSegments <= 0 {
		opts.MaxSegments = 10000
	}
	return &Parser{log: Log{opts: opts}}
}

// ErrNoCycles is wrapped by the error Add returns for an input without a
// single gctrace cycle line.
var ErrNoCycles = errors.New("no gctrace cycle lines")

// Add reads one input to its end. It returns an error for I/O failures and
// for inputs that are not gctrace logs at all (binary data, or no cycle
// line); the error names the input. Bad lines are not errors: they are
// counted in the input's InputStats.
//
// A gzip-compressed input is decompressed as it is read, up to
// Options.MaxDecompressed bytes, and UTF-16 text with a byte order mark is
// converted; binary data is refused from its first bytes. When reading
// stops early (a read error, a cut gzip stream, the decompression cap, a
// line without an end), what was read before stays in the Log.
func (p *Parser) Add(r io.Reader, name string) error {
	return p.AddWithProgress(r, name, nil)
}

// AddWithProgress is Add with a callback that receives the number of bytes
// read so far from r (compressed bytes for a gzip input, so that they
// compare with the file's size), every 8 MiB or so, for progress displays.
func (p *Parser) AddWithProgress(r io.Reader, name string, progress func(bytesRead int64)) error {
	l := &p.log
	l.Inputs = append(l.Inputs, InputStats{Name: name})
	st := &l.Inputs[len(l.Inputs)-1]
	raw := &countingReader{r: r}
	text, enc, err := decode(raw, l.opts.MaxDecompressed)
	st.Encoding = enc
	if err != nil {
		st.Binary = true
		return fmt.Errorf("%s: %v", name, err)
	}
	rd := NewReader(text, name)
	sg := &segmenter{log: l, opts: &l.opts}
	var nextProgress int64
	for rd.Scan() {
		rec := rd.Record()
		st.Lines++
		st.Kinds[rec.Kind]++
		if st.Lines <= 64 && bytes.IndexByte(rec.Text, 0) >= 0 {
			// Binary data after a text start: stop rather than read on.
			st.Binary = true
			break
		}
		switch rec.Kind {
		case KindCycle:
			sg.cycle(name, rec.Cycle)
		case KindForced:
			// Go 1.2 and 1.3 print "scvgN: GC forced" after the periodic
			// cycle; later versions print "GC forced" before it.
			if bytes.Contains(rec.Prefix, []byte("scvg")) {
				sg.forcedAfter(rec.Process)
			} else {
				sg.forced(rec.Process)
			}
		case KindScavenge:
			sg.scavenge(rec.Process)
		case KindHeader:
			sg.header(rec.Text)
		case KindScan:
			sg.scan(rec.Process, rec.Scan)
		case KindError:
			st.NErrors++
			if len(st.Errors) < maxErrors {
				e := *rec.Err
				st.Errors = append(st.Errors, &e)
			}
			if rec.Err.Truncated {
				st.Partial = true
			}
		}
		if progress != nil && raw.n >= nextProgress {
			progress(raw.n)
			nextProgress = raw.n + 8<<20
		}
	}
	sg.closeAll()
	if l.opts.RunS > 0 {
		l.dropReplayed(st)
	}
	st.Bytes = rd.Offset()
	if err := rd.Err(); err != nil {
		return readError(name, st, l.opts.MaxDecompressed, err)
	}
	switch {
	case st.Binary:
		return fmt.Errorf("%s: not a text log (binary data in the first lines)", name)
	case st.Lines == 0:
		return fmt.Errorf("%s: empty input: %w", name, ErrNoCycles)
	case st.Kinds[KindCycle] == 0 && st.NErrors > 0:
		return fmt.Errorf("%s: %w; first bad line: %v", name, ErrNoCycles, st.Errors[0])
	case st.Kinds[KindCycle] == 0:
		return fmt.Errorf("%s: %w among %d lines (was the program run with GODEBUG=gctrace=1?)", name, ErrNoCycles, st.Lines)
	}
	return nil
}

// readError describes the error that stopped reading an input.
func readError(name string, st *InputStats, limit int64, err error) error {
	var se *SyntaxError
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, errTooLarge):
		return fmt.Errorf("%s: decompressed log exceeds %d MiB; stopped after line %d (a gzip bomb?)", name, limit>>20, st.Lines)
	case strings.HasPrefix(st.Encoding, EncodingGzip) && errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: gzip data ends early (the file was cut short); read %d lines: %w", name, st.Lines, err)
	case strings.HasPrefix(st.Encoding, EncodingGzip):
		return fmt.Errorf("%s: corrupt gzip data after line %d: %w", name, st.Lines, err)
	}
	return fmt.Errorf("%s:%d: %w", name, st.Lines+1, err)
}

// Log returns the parsed result. Call it once all inputs have been added.
func (p *Parser) Log() *Log { return &p.log }

// Parse reads a single input into a Log; see Parser.Add for errors.
func Parse(r io.Reader, name string, opts Options) (*Log, error) {
	p := NewParser(opts)
	err := p.Add(r, name)
	return p.Log(), err
}

// warnings returns the caveats that apply to a finished segment's figures.
func warnings(s *Segment) []string {
	var w []string
	sum := &s.Summary
	if sum.Cycles < 2 {
		w = append(w, "a single cycle: rates and CPU shares need at least two")
	} else if sum.Cycles < 5 {
		w = append(w, fmt.Sprintf("only %d cycles: figures are rough", sum.Cycles))
	}
	if s.Format == FormatPre15 {
		w = append(w, "Go ≤ 1.4 lines carry no timestamps: no rates or CPU shares")
	}
	if sum.Missing > 0 {
		w = append(w, fmt.Sprintf("%s missing from the numbering: rates cover the gaps, totals do not", plural.S(sum.Missing, "cycle")))
	}
	if sum.Cycles >= 2 && sum.LiveMaxMB >= 0 && sum.LiveMaxMB < 16 && sum.PeakHeapMB < 32 {
		w = append(w, "heap sizes of a few MiB: the runtime rounds them down to whole MiB, so allocation figures are coarse")
	}
	if sum.PausesApprox {
		w = append(w, "pause percentiles are estimated within 1% (more than 4096 pauses)")
	}
	if s.CyclesTruncated {
		w = append(w, "not every cycle was kept for charts (retention limit); summaries include all")
	}
	return w
}

// String returns a one-line description of the segment for error messages
// and debugging.
func (s *Segment) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d-%d", s.Input, s.FirstLine, s.LastLine)
	if s.Label != "" {
		fmt.Fprintf(&b, " %s", s.Label)
	}
	if s.Process != "" {
		fmt.Fprintf(&b, " [%s]", s.Process)
	}
	fmt.Fprintf(&b, " gc %d-%d (%s)", s.Summary.FirstGC, s.Summary.LastGC, s.Format)
	return b.String()
}
