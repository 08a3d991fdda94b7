package evidence

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/heapprof"
)

// loader gathers one Set.
type loader struct {
	ctx context.Context
	opt *Options
	set *Set
	in  *diagnose.Input
	gcp *gctrace.Parser // shared by every gctrace input: one Log
}

// Load reads the evidence in sources: files of any kind gcdoctor reads
// ("-" is Options.Stdin), or one bundle. With no source it reads standard
// input. It returns an error, and no Set, only when there is nothing to
// diagnose; inputs that failed beside others that did not are in
// Set.Failed, and the error of a source that failed on its own names it.
func Load(ctx context.Context, sources []string, opt Options) (*Set, error) {
	if len(sources) == 0 {
		sources = []string{"-"}
	}
	for _, s := range sources {
		if bundle.IsBundle(s) {
			if len(sources) > 1 {
				return nil, fmt.Errorf("%s: a bundle is read on its own, not beside other inputs", s)
			}
			return LoadBundle(ctx, s, opt)
		}
	}
	l := newLoader(ctx, &opt)
	l.in.GoVersion, l.in.GOGC = opt.GoVersion, opt.GOGC
	for _, s := range sources {
		if err := l.file(s); err != nil {
			l.set.Failed = append(l.set.Failed, err)
		}
	}
	l.partialLog(func(err error) { l.set.Failed = append(l.set.Failed, err) })
	l.source()
	if !l.found() {
		if err := l.set.Err(); err != nil {
			return l.set, err
		}
		return l.set, ErrNoEvidence
	}
	l.caveats()
	return l.set, nil
}

func newLoader(ctx context.Context, opt *Options) *loader {
	in := &diagnose.Input{}
	return &loader{ctx: ctx, opt: opt, in: in, set: &Set{Input: in}}
}

// found reports whether any evidence was read: the source checks count,
// since they are worth reporting on their own.
func (l *loader) found() bool {
	return l.in.Log != nil || l.in.Heap != nil || l.in.Trace != nil || l.in.Lint != nil || l.in.Live != nil || len(l.in.Extensions) > 0
}

// file reads one input the user named.
func (l *loader) file(name string) error {
	var r io.Reader
	display := name
	var size int64
	if name == "-" {
		if l.opt.Stdin == nil {
			return errors.New("no standard input to read")
		}
		r, display = l.opt.Stdin, "<stdin>"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if st.IsDir() {
			return fmt.Errorf("%s: %w in this directory (a bundle holds %s)", name, ErrNoEvidence, strings.Join(bundle.KnownFiles, ", "))
		}
		r, size = f, st.Size()
	}
	br := bufio.NewReaderSize(ctxReader{l.ctx, r}, 64<<10)
	rd := sniffKind(br, l.opt.want())
	if l.opt.want()&rd.kind == 0 {
		if rd.kind == Heap {
			// Every pprof profile sniffs as one: say which it is when it
			// is of a kind no command reads.
			var nh *heapprof.NotHeapError
			if _, err := heapprof.Read(br, display); errors.As(err, &nh) && nh.Kind != "" {
				return fmt.Errorf("%s: %s, not %s", display, article(nh.Kind), article(l.opt.want().String()))
			}
		}
		return fmt.Errorf("%s: %s, not %s (%s reads it)", display, article(rd.name), article(l.opt.want().String()), rd.command)
	}
	return rd.read(l, br, display, size)
}

// partialLog reports the gctrace inputs that ended inside a cycle line.
func (l *loader) partialLog(report func(error)) {
	if l.in.Log == nil {
		return
	}
	for _, in := range l.in.Log.Inputs {
		if in.Partial && len(in.Errors) > 0 {
			report(&partialError{in.Errors[len(in.Errors)-1]})
		}
	}
}

// LoadBundle reads the evidence a bundle holds, with what its meta.json and
// rss.csv recorded about the run. Evidence that is missing or unreadable is
// named in the notes and left out: the diagnosis covers what is there.
func LoadBundle(ctx context.Context, path string, opt Options) (*Set, error) {
	b, err := bundle.OpenContext(ctx, path)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	l := newLoader(ctx, &opt)
	l.set.Bundle = path
	l.in.Bundle = path
	l.meta(b)
	dir := strings.TrimSuffix(path, "/") + "/"
	for _, rd := range readers {
		if opt.want()&rd.kind == 0 {
			continue
		}
		file := ""
		for _, f := range rd.files {
			if b.Has(f) {
				file = f
				break
			}
		}
		if file == "" {
			if rd.missing != "" {
				l.set.note("%s", rd.missing)
			}
			continue
		}
		if err := l.bundleFile(b, rd, file, dir+file); err != nil {
			var pe *partialError
			if errors.As(err, &pe) {
				l.set.note("%v", pe)
				continue
			}
			l.set.note("%s left out: %v", file, err)
		}
	}
	if opt.want() == All {
		l.liveSamples(b, path)
	}
	if l.in.Run == nil {
		// A run's log ends where the program exited, often inside a gc
		// line; a log of unknown origin that does is suspect.
		l.partialLog(func(err error) { l.set.Failed = append(l.set.Failed, err) })
	}
	l.source()
	if !l.found() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNoEvidence, strings.Join(l.set.Notes, "; "))
	}
	l.caveats()
	return l.set, nil
}

func (l *loader) bundleFile(b *bundle.Bundle, rd *reader, file, name string) error {
	f, err := b.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	var size int64
	if sf, ok := f.(interface{ Stat() (os.FileInfo, error) }); ok {
		if st, err := sf.Stat(); err == nil {
			size = st.Size()
		}
	}
	return rd.read(l, ctxReader{l.ctx, f}, name, size)
}

// meta starts the input from what a bundle recorded about its run
// (meta.json and rss.csv); flags given by the user take precedence.
func (l *loader) meta(b *bundle.Bundle) {
	in := l.in
	in.GoVersion, in.GOGC = l.opt.GoVersion, l.opt.GOGC
	if m := b.Meta(); m != nil {
		if in.GoVersion == "" {
			in.GoVersion = m.GoVersion
		}
		if in.GOGC == "" {
			in.GOGC = m.GOGC
		}
		in.GOMEMLIMIT = m.GOMEMLIMIT
		in.PeakRSS = m.PeakRSSBytes
		if len(m.Command) > 0 {
			in.Run = runInfo(m)
			in.Run.WallS = m.DurationMS / 1000
		}
	}
	if rss, err := b.RSS(); err == nil {
		in.RSS = rss
	}
	if host, err := b.Host(); err == nil {
		in.Host = host
		// The rules place long pauses in time against the host's
		// contention, cycle by cycle.
		l.opt.KeepCycles = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		l.set.note("%s left out: %v", bundle.HostFile, err)
	}
}

// runInfo describes a run from its meta.json.
func runInfo(m *bundle.Meta) *diagnose.RunInfo {
	r := &diagnose.RunInfo{Command: m.Command, PeakRSS: m.PeakRSSBytes,
		GoVersion: m.GoVersion, GOGC: m.GOGC, GOMEMLIMIT: m.GOMEMLIMIT, GOMAXPROCS: m.GOMAXPROCS,
		NumCPU: m.NumCPU, CgroupMemoryLimit: m.CgroupMemoryLimitBytes, Stopped: m.Stopped, Host: m.Host,
		// meta.json says "stopped" only when true; the host summary,
		// written by the same versions, tells that it would have.
		StopKnown: m.Host != nil}
	r.ExitCode, r.ExitKnown = m.Exit()
	return r
}

// gogcInt returns GOGC as a number for the gctrace parser, 0 when unset,
// off or not a number.
func gogcInt(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// article puts "a" or "an" before a noun phrase.
func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

// caveats notes what the readers say limits their figures: what was
// undone to read a log, and the bounds a profile or a trace hit.
func (l *loader) caveats() {
	if l.in.Log != nil {
		for _, in := range l.in.Log.Inputs {
			if in.Encoding != "" {
				l.set.note("%s was read as %s", in.Name, in.Encoding)
			}
		}
	}
	if h := l.in.Heap; h != nil && h.Profile != nil {
		for _, w := range h.Profile.Caveats {
			l.set.note("%s: %s", h.Name, w)
		}
	}
	if t := l.in.Trace; t != nil && t.Result != nil {
		for _, w := range t.Result.Caveats {
			l.set.note("%s: %s", t.Name, w)
		}
	}
}

// ctxReader stops reading once its context is done (Ctrl-C), so that a
// large input is not read to its end for nothing.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, errInterrupted
	}
	return c.r.Read(p)
}

// errInterrupted is the read error of an interrupted run.
var errInterrupted = errors.New("interrupted")
