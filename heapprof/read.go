package heapprof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// maxProfileSize bounds what Read loads into memory. Real heap profiles are
// a few megabytes even for big servers.
const maxProfileSize = 1 << 30

// SampleType is one value recorded per sample, as in alloc_space/bytes.
type SampleType struct {
	Type string // alloc_objects, alloc_space, inuse_objects, inuse_space, …
	Unit string // count, bytes, nanoseconds, …
}

// String returns "type/unit", the form `go tool pprof -raw` prints.
func (t SampleType) String() string { return t.Type + "/" + t.Unit }

// Format names the encoding a profile was read from.
type Format string

// The encodings Read accepts.
const (
	FormatProto  Format = "proto"  // gzipped or plain protocol buffer (runtime/pprof debug=0)
	FormatLegacy Format = "legacy" // text of /debug/pprof/heap?debug=1 and the compiler's -memprofile
)

// Profile is a heap or allocs profile, reduced to what allocation analysis
// needs: every sample's four values and its symbolized stack.
//
// Values are the runtime's estimates of the true totals: the runtime samples
// one allocation per Period bytes on average and scales each sample up, so
// small totals are approximate unless the program set
// runtime.MemProfileRate = 1.
type Profile struct {
	Name        string        // the name given to Read, used in errors
	Format      Format        // encoding of the input
	SampleTypes []SampleType  // in profile order
	PeriodType  SampleType    // space/bytes for Go heap profiles
	Period      int64         // sampling period in bytes: runtime.MemProfileRate when written; 0 if unknown
	Time        time.Time     // when the profile was written; zero if unknown
	Duration    time.Duration // time covered, for delta profiles (?seconds=N); 0 if unknown

	TotalAllocBytes   int64 // sum of alloc_space over all samples
	TotalAllocObjects int64 // sum of alloc_objects over all samples
	TotalInuseBytes   int64 // sum of inuse_space: live at the last GC
	TotalInuseObjects int64 // sum of inuse_objects
	HasAlloc          bool  // the profile records alloc_* values
	HasInuse          bool  // the profile records inuse_* values

	Samples      int // number of samples (distinct stacks, for Go heap profiles)
	EmptyStacks  int // samples with no frame at all
	Unsymbolized int // samples with at least one frame lacking a function name

	// DropFrames and KeepFrames are the frame filters the writer recorded
	// (pprof's drop_frames and keep_frames): frames matching DropFrames and
	// everything below them were cut from the stacks before writing.
	DropFrames, KeepFrames string
	Comments               []string // comments the writer attached

	samples []sample
}

// sample is one profile sample: its values in alloc/inuse order and its
// stack, leaf first.
type sample struct {
	v     [4]int64 // allocBytes, allocObjects, inuseBytes, inuseObjects
	stack []Frame
}

const (
	vAllocBytes = iota
	vAllocObjects
	vInuseBytes
	vInuseObjects
)

// Read parses a heap or allocs profile from r. It accepts gzipped or plain
// protocol buffers and the legacy text format; name is used in errors. A
// profile of another kind, such as a CPU profile, is an error naming the
// sample types found.
func Read(r io.Reader, name string) (*Profile, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxProfileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(data) > maxProfileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxProfileSize)
	}
	return parse(data, name)
}

func parse(data []byte, name string) (*Profile, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty profile", name)
	}
	gz := len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
	pp, err := parseProfile(data)
	if err != nil {
		if gz {
			if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected EOF") {
				return nil, fmt.Errorf("%s: truncated gzip data (the file was cut short): %v", name, err)
			}
			return nil, fmt.Errorf("%s: corrupt gzip data: %v", name, err)
		}
		return nil, fmt.Errorf("%s: not a readable profile: %v", name, err)
	}
	p := &Profile{
		Name:       name,
		Format:     FormatProto,
		Period:     pp.Period,
		DropFrames: pp.DropFrames,
		KeepFrames: pp.KeepFrames,
		Comments:   pp.Comments,
	}
	if !gz && looksLegacy(data) {
		p.Format = FormatLegacy
		symbolizeLegacy(pp, data)
	}
	if pp.PeriodType != nil {
		p.PeriodType = SampleType{pp.PeriodType.Type, pp.PeriodType.Unit}
	}
	if pp.TimeNanos > 0 {
		p.Time = time.Unix(0, pp.TimeNanos)
	}
	p.Duration = time.Duration(pp.DurationNanos)

	idx := [4]int{-1, -1, -1, -1}
	for i, st := range pp.SampleType {
		p.SampleTypes = append(p.SampleTypes, SampleType{st.Type, st.Unit})
		switch st.Type {
		case "alloc_space":
			idx[vAllocBytes] = i
		case "alloc_objects":
			idx[vAllocObjects] = i
		case "inuse_space", "space":
			idx[vInuseBytes] = i
		case "inuse_objects", "objects":
			idx[vInuseObjects] = i
		}
	}
	if idx == [4]int{-1, -1, -1, -1} {
		types := make([]string, len(p.SampleTypes))
		for i, st := range p.SampleTypes {
			types[i] = st.String()
		}
		found := strings.Join(types, ", ")
		if found == "" {
			found = "none"
		}
		return nil, fmt.Errorf("%s: not a heap profile: sample types %s", name, found)
	}
	p.HasAlloc = idx[vAllocBytes] >= 0 || idx[vAllocObjects] >= 0
	p.HasInuse = idx[vInuseBytes] >= 0 || idx[vInuseObjects] >= 0

	frames := make(map[*profile.Location][]Frame, len(pp.Location))
	p.samples = make([]sample, 0, len(pp.Sample))
	for _, s := range pp.Sample {
		var sm sample
		for k, i := range idx {
			if i >= 0 && i < len(s.Value) {
				sm.v[k] = s.Value[i]
			}
		}
		for _, loc := range s.Location {
			fs, ok := frames[loc]
			if !ok {
				fs = locationFrames(loc)
				frames[loc] = fs
			}
			sm.stack = append(sm.stack, fs...)
		}
		if p.Format == FormatLegacy {
			sm.stack = trimHidden(sm.stack)
		}
		unsym := false
		for _, f := range sm.stack {
			if f.Function == "" {
				unsym = true
			}
		}
		if len(sm.stack) == 0 {
			p.EmptyStacks++
		}
		if unsym {
			p.Unsymbolized++
		}
		p.TotalAllocBytes += sm.v[vAllocBytes]
		p.TotalAllocObjects += sm.v[vAllocObjects]
		p.TotalInuseBytes += sm.v[vInuseBytes]
		p.TotalInuseObjects += sm.v[vInuseObjects]
		p.samples = append(p.samples, sm)
	}
	p.Samples = len(p.samples)
	return p, nil
}

// parseProfile calls profile.Parse, turning a panic on hostile input into
// an error: the library is robust in practice, but a diagnosis tool reads
// whatever users hand it.
func parseProfile(data []byte) (p *profile.Profile, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("malformed profile: %v", r)
		}
	}()
	return profile.Parse(bytes.NewReader(data))
}

// locationFrames expands a location into frames, innermost inlined call
// first, matching the leaf-first order of the stack.
func locationFrames(loc *profile.Location) []Frame {
	if len(loc.Line) == 0 {
		return []Frame{{Address: loc.Address}}
	}
	fs := make([]Frame, 0, len(loc.Line))
	for _, ln := range loc.Line {
		f := Frame{Address: loc.Address, Line: int(ln.Line)}
		if ln.Function != nil {
			f.Function = ln.Function.Name
			f.File = ln.Function.Filename
		}
		fs = append(fs, f)
	}
	return fs
}

// trimHidden drops the unsymbolized frames at both ends of a legacy text
// stack. They are the runtime's own (mallocgc, growslice, concatstrings at
// the leaf, goexit at the root), whose symbols the runtime leaves out of the
// text; dropping them makes the stack match what the protocol buffer form
// records, which omits them entirely.
func trimHidden(stack []Frame) []Frame {
	i, j := 0, len(stack)
	for i < j && stack[i].Function == "" {
		i++
	}
	for j > i && stack[j-1].Function == "" {
		j--
	}
	if i == j {
		return stack // nothing symbolized: keep the addresses
	}
	return stack[i:j]
}

// looksLegacy reports whether data is the text form of a heap profile.
func looksLegacy(data []byte) bool {
	head := data[:min(len(data), 256)]
	return bytes.Contains(head, []byte("heap profile:")) || bytes.Contains(head, []byte("heap_v2/"))
}

// symbolizeLegacy fills in function, file and line for the locations of a
// profile read from the legacy text format. That format lists each stack's
// symbols in comment lines "#\t0xPC\tfunc+0xOFF\tfile:line" after the
// sample line; profile.Parse keeps only the addresses. An address printed
// more than once in a row lists inlined calls, innermost first. The runtime
// hides its own leading frames (mallocgc, growslice, …) from the comments,
// so those stay unsymbolized.
func symbolizeLegacy(pp *profile.Profile, data []byte) {
	type line struct {
		fn, file string
		line     int64
	}
	syms := make(map[uint64][]line)
	var prev uint64
	seen := make(map[uint64]bool)
	for len(data) > 0 {
		var ln []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			ln, data = data[:i], data[i+1:]
		} else {
			ln, data = data, nil
		}
		if len(ln) < 4 || ln[0] != '#' || ln[1] != '\t' {
			prev = 0
			continue
		}
		fields := strings.Split(strings.TrimRight(string(ln[2:]), "\r"), "\t")
		var parts []string
		for _, f := range fields {
			if f != "" {
				parts = append(parts, f)
			}
		}
		if len(parts) < 3 {
			prev = 0
			continue
		}
		addr, err := strconv.ParseUint(parts[0], 0, 64)
		if err != nil {
			prev = 0
			continue
		}
		fn := parts[1]
		if i := strings.LastIndex(fn, "+0x"); i > 0 {
			fn = fn[:i]
		}
		file, num := parts[2], int64(0)
		if i := strings.LastIndexByte(file, ':'); i > 0 {
			if n, err := strconv.ParseInt(file[i+1:], 10, 64); err == nil {
				file, num = file[:i], n
			}
		}
		// The same stack appears under many samples; record each address
		// once, but keep consecutive repeats (inlining) together.
		if seen[addr] && prev != addr {
			continue
		}
		seen[addr] = true
		prev = addr
		syms[addr] = append(syms[addr], line{fn, file, num})
	}
	if len(syms) == 0 {
		return
	}
	funcs := make(map[[2]string]*profile.Function)
	for _, loc := range pp.Location {
		if len(loc.Line) > 0 {
			continue
		}
		ls, ok := syms[loc.Address]
		if !ok {
			continue
		}
		for _, l := range ls {
			key := [2]string{l.fn, l.file}
			f := funcs[key]
			if f == nil {
				f = &profile.Function{ID: uint64(len(pp.Function) + 1), Name: l.fn, SystemName: l.fn, Filename: l.file}
				pp.Function = append(pp.Function, f)
				funcs[key] = f
			}
			loc.Line = append(loc.Line, profile.Line{Function: f, Line: l.line})
		}
	}
}
