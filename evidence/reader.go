package evidence

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/heapprof"
)

// reader reads one kind of evidence, from a file the user names or from a
// bundle. Adding a kind of evidence is adding a reader to readers.
type reader struct {
	kind Kind
	// name is what the evidence is called in messages; command the
	// gcdoctor command that reads such a file on its own.
	name, command string
	// files are the bundle files that hold this kind, the preferred first;
	// the first one present is read.
	files []string
	// missing says what a bundle without the evidence lacks, and how to
	// collect it.
	missing string
	// sniff reports whether the first bytes of a file look like this kind;
	// the first reader whose sniff says yes reads the file. Nil matches
	// everything (the fallback, last).
	sniff func(head []byte) bool
	// read reads one input into the loader's input. A nil error with the
	// input marked partial is a partial result.
	read func(l *loader, r io.Reader, name string, size int64) error
}

// readers is every kind of evidence, in the order a diagnosis reads them
// and files are sniffed (the fallback last); Register adds to it.
var readers = []*reader{
	{
		kind: Trace, name: "execution trace", command: "gcdoctor trace",
		files:   []string{bundle.TraceFile},
		missing: "no execution trace: no goroutine or pause analysis (gcdoctor attach --seconds N records one)",
		sniff:   func(head []byte) bool { return bytes.HasPrefix(head, []byte("go 1.")) },
		read:    readTrace,
	},
	{
		kind: Heap, name: "heap profile", command: "gcdoctor heap",
		files:   []string{bundle.AllocsFile, bundle.HeapFile},
		missing: "no allocation profile: no allocation sites (gcdoctor attach collects one; a program run by gcdoctor writes one at its peak with defer agent.WatchHeapPeak()())",
		sniff:   isProfile,
		read:    readHeap,
	},
	{
		kind: GCTrace, name: "gctrace log", command: "gcdoctor gctrace",
		files:   []string{bundle.GCTraceFile},
		missing: "no gctrace.log: no GC cycle figures (gcdoctor run records one)",
		read:    readGCTrace,
	},
}

// sniffLen is how much of a file is looked at to tell its kind.
const sniffLen = 512

// isProfile reports whether head starts a pprof profile: gzip (profiles are
// gzipped protobuf) whose content is not text, or the legacy text format.
// A goroutine-leak profile, whose string table opens with its sample type,
// is left to its own reader (package goroutineleak).
func isProfile(head []byte) bool {
	if bytes.HasPrefix(head, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return true
		}
		inner := make([]byte, sniffLen)
		n, _ := io.ReadFull(zr, inner)
		return !isText(inner[:min(n, 64)]) && !bytes.Contains(inner[:n], []byte("goroutineleak"))
	}
	for _, p := range []string{"heap profile:", "--- memory profile"} {
		if bytes.HasPrefix(head, []byte(p)) {
			return true
		}
	}
	return false
}

// isText reports whether b has no NUL and no other control bytes than
// white space, as log text does.
func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// readerFor returns the reader of a kind.
func readerFor(k Kind) *reader {
	for _, r := range readers {
		if r.kind == k {
			return r
		}
	}
	panic(fmt.Sprintf("evidence: no reader for %d", k))
}

// sniffKind tells which kind of evidence br holds: the first reader whose
// sniff claims it, wanted or not, so that a file of another kind is named
// as such. What nothing claims is read as the one kind wanted, whose parser
// then says what is wrong, or else by the fallback (gctrace).
func sniffKind(br *bufio.Reader, want Kind) *reader {
	head, _ := br.Peek(sniffLen)
	for _, r := range readers {
		if r.sniff != nil && r.sniff(head) {
			return r
		}
	}
	var wanted []*reader
	for _, r := range readers {
		if want&r.kind != 0 {
			wanted = append(wanted, r)
		}
	}
	if len(wanted) == 1 {
		return wanted[0]
	}
	return readers[len(readers)-1]
}

func readGCTrace(l *loader, r io.Reader, name string, size int64) error {
	if l.gcp == nil {
		l.gcp = gctrace.NewParser(gctrace.Options{GOGC: gogcInt(l.in.GOGC), KeepCycles: l.opt.KeepCycles})
	}
	update, done := l.opt.progress(name, size)
	defer done()
	err := l.gcp.AddWithProgress(r, name, update)
	if err == nil {
		l.in.Log = l.gcp.Log()
	}
	return err
}

func readHeap(l *loader, r io.Reader, name string, size int64) error {
	if l.in.Heap != nil {
		return fmt.Errorf("%s: one heap profile at a time (already read %s)", name, l.in.Heap.Name)
	}
	p, err := heapprof.Read(r, name)
	if err != nil {
		return err
	}
	h := &diagnose.HeapEvidence{Name: name, Profile: p, Ops: l.opt.Ops, Source: newSourceReader().line}
	opts := heapprof.SiteOptions{N: l.opt.Top}
	if opts.N <= 0 {
		opts.N = 10
	}
	if len(l.opt.User) > 0 {
		opts.User = heapprof.UserModules(l.opt.User...)
	}
	h.Top = p.Top(opts)
	if p.HasInuse {
		opts.Sort, opts.N = heapprof.ByInuseSpace, 3
		h.Inuse = p.Top(opts)
	}
	l.in.Heap = h
	return nil
}

func readTrace(l *loader, r io.Reader, name string, size int64) error {
	if l.in.Trace != nil {
		return fmt.Errorf("%s: one execution trace at a time (already read %s)", name, l.in.Trace.Name)
	}
	update, done := l.opt.progress(name, size)
	defer done()
	res, err := exectrace.Analyze(r, exectrace.Options{Progress: update})
	var te *exectrace.TruncatedError
	if res == nil || err != nil && !errors.As(err, &te) {
		return fmt.Errorf("%s: %w", name, err)
	}
	l.in.Trace = &diagnose.TraceEvidence{Name: name, Result: res}
	if err != nil {
		return &partialError{fmt.Errorf("%s: %w", name, err)}
	}
	return nil
}

// partialError marks an input read only in part: its figures are in the
// input, and the error says where reading stopped.
type partialError struct{ err error }

func (e *partialError) Error() string {
	if msg := e.err.Error(); strings.Contains(msg, "partial") {
		return msg
	}
	return e.err.Error() + "; the results are partial"
}
func (e *partialError) Unwrap() error { return e.err }
