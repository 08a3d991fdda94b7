package exectrace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/exp/trace"
)

// Options tunes Analyze. The zero value is ready to use.
type Options struct {
	// Progress, when set, is called with the number of bytes read so far,
	// about once per MiB and once at the end.
	Progress func(bytesRead int64)
	// MMUWindows are the window sizes of the MMU curve; DefaultMMUWindows
	// when empty.
	MMUWindows []time.Duration
	// HeapPoints bounds the heap series (default 512).
	HeapPoints int
	// MaxStops bounds the pauses listed in GC.Stops (default 100000, about
	// 4 MB; at most 10 million); statistics cover every pause.
	MaxStops int
	// MaxGroups bounds the goroutine groups (start functions) kept apart
	// (default 10000); goroutines of further start functions are counted
	// together in a group named OtherGroups.
	MaxGroups int
	// MaxGoroutines bounds the goroutines followed at once (default 1<<20,
	// a few hundred MB); further ones are left out of the goroutine
	// figures, and Result.Caveats says so.
	MaxGoroutines int
	// MaxUtilSteps bounds the changes of mutator utilization kept for the
	// MMU curve (default 1<<22, 48 MB); the curve then covers the trace up
	// to the last one kept, and Result.Caveats says so.
	MaxUtilSteps int
}

// Upper bounds on the Options counts, whatever is asked.
const (
	maxStopsLimit   = 10_000_000
	maxHeapPoints   = 1 << 20
	maxMMUWindows   = 64
	maxGroupsLimit  = 1 << 20
	maxGoroutinesLm = 1 << 24
	maxUtilStepsLm  = 1 << 26
)

// OtherGroups names the group that gathers the goroutines of start
// functions beyond Options.MaxGroups.
const OtherGroups = "(other start functions)"

// DefaultMMUWindows are the MMU windows used when Options.MMUWindows is
// empty: 1 ms to 1 s, three per decade.
var DefaultMMUWindows = []time.Duration{
	1 * time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	1000 * time.Millisecond,
}

// Errors Analyze returns for input that is not a usable trace.
var (
	// ErrEmpty is returned for empty input.
	ErrEmpty = errors.New("empty file: no execution trace")
	// ErrNotTrace is returned for input that does not start with an
	// execution trace header.
	ErrNotTrace = errors.New("not a Go execution trace")
)

// oldestFormat and newestFormat are the trace formats the reader supports.
const (
	oldestFormat = 22
	newestFormat = 26
)

// VersionError reports a trace whose format the reader does not support.
type VersionError struct {
	Minor int // the minor Go version in the header, such as 21 for "go 1.21 trace"
}

func (e *VersionError) Error() string {
	if e.Minor < oldestFormat {
		return fmt.Sprintf("trace format from Go 1.%d; record with Go ≥ 1.%d", e.Minor, oldestFormat)
	}
	return fmt.Sprintf("trace format from Go 1.%d is newer than this reader knows (Go 1.%d to 1.%d): update gcdoctor", e.Minor, oldestFormat, newestFormat)
}

// TruncatedError reports a trace that ended early or became unreadable
// part-way; Analyze returns it with the partial results.
type TruncatedError struct {
	Offset int64 // bytes read when the error was found
	Events int64 // events read before it
	Err    error // the reader's error
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("trace is truncated or corrupt after %d bytes (%d events read; results are partial): %v", e.Offset, e.Events, e.Err)
}

func (e *TruncatedError) Unwrap() error { return e.Err }

// AnalyzeFile opens and analyzes the trace in the named file. Errors are
// prefixed with the name.
func AnalyzeFile(name string, opts Options) (*Result, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := Analyze(f, opts)
	if err != nil {
		err = fmt.Errorf("%s: %w", name, err)
	}
	return res, err
}

// Analyze reads an execution trace from r in one pass and summarises it.
//
// Input that is not a trace gives ErrEmpty, ErrNotTrace or a *VersionError
// and no result. A trace that ends early or is corrupt gives the results of
// the events read before the problem, with Partial set, and a
// *TruncatedError.
func Analyze(r io.Reader, opts Options) (res *Result, err error) {
	cr := &countingReader{r: r, progress: opts.Progress}
	br := bufio.NewReaderSize(cr, 64<<10)
	minor, err := readHeader(br)
	if err != nil {
		return nil, err
	}
	a := newAnalyzer(opts)
	a.format = minor
	tr, err := trace.NewReader(br)
	if err != nil {
		// The header was checked above, so this is unexpected.
		return nil, fmt.Errorf("%w: %v", ErrNotTrace, err)
	}
	readErr := a.run(tr)
	cr.done()
	res = a.finish()
	res.Bytes = cr.n
	if readErr == nil && res.Events == a.syncs {
		// Only the reader's own Sync events: no generation was read.
		readErr = errors.New("no events after the header")
	}
	if readErr != nil {
		terr := &TruncatedError{Offset: cr.n, Events: res.Events, Err: readErr}
		res.Partial = true
		res.PartialReason = terr.Error()
		return res, terr
	}
	return res, nil
}

// run feeds every event to the analyzer until the end of the trace or the
// first error.
func (a *analyzer) run(tr *trace.Reader) (err error) {
	// The reader is meant to reject bad input with an error, but it is a
	// large parser fed arbitrary bytes: a panic on a corrupt trace becomes an
	// error with the results so far rather than a crash.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("trace reader failed: %v", p)
		}
	}()
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		a.event(&ev)
	}
}

// readHeader checks the 16-byte header, "go 1.N trace" padded with NULs,
// and returns N. The reader's own message for an old or unknown header does
// not say which Go release wrote it, nor that the file may simply be empty.
func readHeader(br *bufio.Reader) (int, error) {
	hdr, err := br.Peek(16)
	if len(hdr) == 0 {
		if err == nil || err == io.EOF {
			return 0, ErrEmpty
		}
		return 0, err
	}
	const prefix = "go 1."
	if !bytes.HasPrefix(hdr, []byte(prefix)) {
		return 0, ErrNotTrace
	}
	rest := hdr[len(prefix):]
	i := 0
	for i < len(rest) && i < 3 && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	minor, convErr := strconv.Atoi(string(rest[:i]))
	if convErr != nil || !bytes.HasPrefix(rest[i:], []byte(" trace")) {
		if len(hdr) < 16 {
			return 0, fmt.Errorf("%w: file ends inside the header", ErrNotTrace)
		}
		return 0, ErrNotTrace
	}
	if minor < oldestFormat || minor > newestFormat {
		return minor, &VersionError{Minor: minor}
	}
	if len(hdr) < 16 {
		return minor, fmt.Errorf("%w: file ends inside the header", ErrNotTrace)
	}
	return minor, nil
}

// goVersions names the releases that write each trace format: the format
// changes only in some releases.
func goVersions(format int) string {
	switch format {
	case 22:
		return "go1.22"
	case 23:
		return "go1.23–go1.24"
	case 25:
		return "go1.25"
	case 26:
		return "go1.26+"
	}
	return ""
}

// countingReader counts the bytes read and reports progress.
type countingReader struct {
	r        io.Reader
	n        int64
	reported int64
	progress func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.progress != nil && c.n-c.reported >= 1<<20 {
		c.reported = c.n
		c.progress(c.n)
	}
	return n, err
}

func (c *countingReader) done() {
	if c.progress != nil {
		c.progress(c.n)
	}
}
