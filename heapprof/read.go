package heapprof

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/pprof/profile"
	"google.golang.org/protobuf/encoding/protowire"
)

// MaxDecompressed bounds the bytes of a profile after decompression: Read
// refuses a profile that expands beyond it before handing anything to the
// profile parser, whose in-memory form is several times larger. Real heap
// profiles are a few megabytes, even for big servers; a gzip bomb of a few
// megabytes expands to gigabytes.
var MaxDecompressed int64 = 256 << 20

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

	// SamplesDropped counts the samples Read left out to bound memory
	// (see MaxSamples): the lightest by DroppedBy. The totals above
	// include them; the samples, sites and Samples do not.
	SamplesDropped int
	DroppedBy      string // the sample type the dropped samples were lightest by
	// Caveats are caveats on what Read could make of the profile, as
	// sentences.
	Caveats []string

	samples []sample
	// frames holds every distinct frame once; samples' stacks index it.
	frames []Frame
	// dropped are the values of the dropped samples, in sample order.
	dropped [4]int64
}

// sample is one profile sample: its values in alloc/inuse order and its
// stack, leaf first, as indices into Profile.frames.
type sample struct {
	v     [4]int64 // allocBytes, allocObjects, inuseBytes, inuseObjects
	stack []int32
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
//
// Read looks at the first bytes before reading more and refuses what is
// not a profile at once. It decompresses gzip itself, refusing a profile
// that expands beyond MaxDecompressed, and keeps at most MaxSamples
// samples (see Profile.SamplesDropped), so that memory stays bounded
// whatever the input.
func Read(r io.Reader, name string) (*Profile, error) {
	data, err := readData(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return parse(data, name)
}

// sniffLen is how much of the input Read looks at before reading it all.
const sniffLen = 512

// readData reads a whole profile, decompressing it, within
// MaxDecompressed.
func readData(r io.Reader) (data []byte, err error) {
	br := bufio.NewReaderSize(r, sniffLen)
	head, err := br.Peek(sniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, err
	}
	if len(bytes.TrimSpace(head)) == 0 && err == io.EOF {
		return nil, errors.New("empty profile")
	}
	if !isGzip(head) {
		if err := sniff(head); err != nil {
			return nil, err
		}
		data, err = io.ReadAll(io.LimitReader(br, MaxDecompressed+1))
		if err != nil {
			return nil, err
		}
		if int64(len(data)) > MaxDecompressed {
			return nil, fmt.Errorf("profile exceeds %d MiB; refusing", MaxDecompressed>>20)
		}
		return data, nil
	}
	// Decompress twice: once to measure, into nothing, so that a gzip bomb
	// is refused without holding any of it, then into a buffer of the
	// exact size. Compressed profiles are small; it is the expansion that
	// is not.
	packed, err := io.ReadAll(io.LimitReader(br, MaxDecompressed+1))
	if err != nil {
		return nil, err
	}
	if int64(len(packed)) > MaxDecompressed {
		return nil, fmt.Errorf("profile exceeds %d MiB; refusing", MaxDecompressed>>20)
	}
	n, err := gunzip(packed, nil, MaxDecompressed+1)
	if err != nil {
		return nil, err
	}
	if n > MaxDecompressed {
		return nil, fmt.Errorf("decompressed profile exceeds %d MiB; refusing (a gzip bomb?)", MaxDecompressed>>20)
	}
	data = make([]byte, n)
	if _, err := gunzip(packed, data, n); err != nil {
		return nil, err
	}
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return nil, errors.New("empty profile (gzip of nothing)")
	case isGzip(data):
		// The parser would decompress this layer itself, unbounded.
		return nil, errors.New("gzip data inside gzip data: not a profile")
	}
	if err := sniff(data[:min(len(data), sniffLen)]); err != nil {
		return nil, fmt.Errorf("gzip-compressed %v", err)
	}
	return data, nil
}

// gunzip decompresses packed into dst, or only counts the bytes when dst
// is nil, reading at most limit bytes; it returns how many there were.
func gunzip(packed, dst []byte, limit int64) (int64, error) {
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	if err == nil {
		var n int64
		if dst == nil {
			n, err = io.Copy(io.Discard, io.LimitReader(zr, limit))
		} else {
			var m int
			m, err = io.ReadFull(zr, dst[:min(int64(len(dst)), limit)])
			n = int64(m)
		}
		if err == nil {
			return n, nil
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, fmt.Errorf("truncated gzip data (the file was cut short): %v", err)
	}
	return 0, fmt.Errorf("corrupt gzip data: %v", err)
}

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// sniff returns an error saying what head is when it cannot start a
// profile: a protocol buffer starts with a field tag of profile.proto, and
// a legacy profile is text.
func sniff(head []byte) error {
	if bytes.HasPrefix(head, []byte("go 1.")) && bytes.Contains(head[:min(len(head), 16)], []byte(" trace")) {
		return errors.New("data is a Go execution trace, not a heap profile: read it with gcdoctor trace")
	}
	num, typ, n := protowire.ConsumeTag(head)
	switch {
	case n > 0 && num >= profSampleType && num <= 20 &&
		(typ == protowire.VarintType || typ == protowire.Fixed64Type || typ == protowire.BytesType || typ == protowire.Fixed32Type):
		return nil // the start of a protocol buffer
	case bytes.IndexByte(head, 0) < 0 && utf8.Valid(trimPartialRune(head)):
		return nil // text: the legacy parser decides
	}
	return fmt.Errorf("data is not a pprof profile (it starts with % x)", head[:min(len(head), 8)])
}

// trimPartialRune drops an incomplete UTF-8 sequence cut at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// parse reads a whole, decompressed profile.
func parse(data []byte, name string) (*Profile, error) {
	pp, legacy, red, err := decode(data, name)
	if err != nil {
		return nil, err
	}
	p := header(pp, name, legacy)
	idx, err := p.valueIndex(pp)
	if err != nil {
		return nil, err
	}
	p.readSamples(pp, idx)
	if red != nil && red.dropped > 0 {
		p.addDropped(red, idx)
	}
	return p, nil
}

// decode parses data with the pprof library, after bounding it: a
// protocol buffer is reduced to MaxSamples samples (red says what was
// left out), a legacy text profile of more is refused, and is symbolized
// from its comments.
func decode(data []byte, name string) (pp *profile.Profile, legacy bool, red *reduced, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, false, nil, fmt.Errorf("%s: empty profile", name)
	}
	legacy = looksLegacy(data)
	if legacy {
		if n := legacySamples(data); n > MaxSamples {
			return nil, false, nil, fmt.Errorf("%s: %d samples in a legacy text profile, more than the %d this reader takes: write the profile with debug=0", name, n, MaxSamples)
		}
	} else {
		if data, red, err = reduceProfile(data); err != nil {
			return nil, false, nil, fmt.Errorf("%s: %v", name, err)
		}
	}
	pp, err = parseProfile(data)
	if err != nil {
		if head := data[:min(len(data), 4<<10)]; bytes.Contains(head, []byte(" ms clock, ")) {
			return nil, false, nil, fmt.Errorf("%s: not a readable profile: it is a gctrace log; read it with gcdoctor gctrace", name)
		}
		return nil, false, nil, fmt.Errorf("%s: not a readable profile: %v", name, err)
	}
	if legacy {
		symbolizeLegacy(pp, data)
	}
	return pp, legacy, red, nil
}

// header makes a Profile of what pp says about itself, before its samples.
func header(pp *profile.Profile, name string, legacy bool) *Profile {
	p := &Profile{
		Name:       name,
		Format:     FormatProto,
		Period:     pp.Period,
		DropFrames: pp.DropFrames,
		KeepFrames: pp.KeepFrames,
		Comments:   pp.Comments,
	}
	if legacy {
		p.Format = FormatLegacy
	}
	if pp.PeriodType != nil {
		p.PeriodType = SampleType{pp.PeriodType.Type, pp.PeriodType.Unit}
	}
	if pp.TimeNanos > 0 {
		p.Time = time.Unix(0, pp.TimeNanos)
	}
	p.Duration = time.Duration(pp.DurationNanos)
	return p
}

// valueIndex records pp's sample types in p and returns, for each of the
// four values of a sample, the index of the sample type that holds it (-1
// for none). A profile with none of them is not a heap profile.
func (p *Profile) valueIndex(pp *profile.Profile) ([4]int, error) {
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
		return idx, &NotHeapError{Name: p.Name, Kind: profileKind(p.SampleTypes), Types: p.SampleTypes}
	}
	p.HasAlloc = idx[vAllocBytes] >= 0 || idx[vAllocObjects] >= 0
	p.HasInuse = idx[vInuseBytes] >= 0 || idx[vInuseObjects] >= 0
	return idx, nil
}

// NotHeapError is the error of Read for a profile of another kind than
// heap or allocs, such as a CPU profile.
type NotHeapError struct {
	Name string
	// Kind is what the profile is, as runtime/pprof names it ("CPU
	// profile", "goroutine profile", "block or mutex profile",
	// "threadcreate profile"), or "" when its sample types do not say.
	Kind  string
	Types []SampleType
}

func (e *NotHeapError) Error() string {
	types := make([]string, len(e.Types))
	for i, st := range e.Types {
		types[i] = st.String()
	}
	found := strings.Join(types, ", ")
	if found == "" {
		found = "none"
	}
	if e.Kind == "" {
		return fmt.Sprintf("%s: not a heap profile: sample types %s", e.Name, found)
	}
	return fmt.Sprintf("%s: a %s, not a heap profile: sample types %s", e.Name, e.Kind, found)
}

// profileKind names the profile runtime/pprof writes with these sample
// types, or returns "".
func profileKind(types []SampleType) string {
	if len(types) == 0 {
		return ""
	}
	switch types[len(types)-1].Type {
	case "cpu":
		return "CPU profile"
	case "goroutine":
		return "goroutine profile"
	case "threadcreate":
		return "threadcreate profile"
	case "delay":
		// The block and the mutex profile have the same sample types.
		return "block or mutex profile"
	}
	return ""
}

// readSamples converts pp's samples, taking their values from the sample
// types idx names, and counts them into p's totals.
func (p *Profile) readSamples(pp *profile.Profile, idx [4]int) {
	// Each location's frames are made once; a sample's stack lists their
	// indices, so a million samples cost a few bytes per frame each.
	type span struct{ start, n int32 }
	frames := make(map[*profile.Location]span, len(pp.Location))
	p.samples = make([]sample, 0, len(pp.Sample))
	var stack []int32
	for _, s := range pp.Sample {
		var sm sample
		for k, i := range idx {
			if i >= 0 && i < len(s.Value) {
				sm.v[k] = s.Value[i]
			}
		}
		stack = stack[:0]
		for _, loc := range s.Location {
			sp, ok := frames[loc]
			if !ok {
				fs := locationFrames(loc)
				sp = span{int32(len(p.frames)), int32(len(fs))}
				p.frames = append(p.frames, fs...)
				frames[loc] = sp
			}
			for i := sp.start; i < sp.start+sp.n; i++ {
				stack = append(stack, i)
			}
		}
		if p.Format == FormatLegacy {
			stack = trimHidden(p.frames, stack)
		}
		sm.stack = slices.Clone(stack)
		p.count(&sm)
		p.samples = append(p.samples, sm)
	}
	p.Samples = len(p.samples)
}

// count adds a sample to the profile's totals and its counts of empty and
// unsymbolized stacks.
func (p *Profile) count(sm *sample) {
	unsym := false
	for _, i := range sm.stack {
		if p.frames[i].Function == "" {
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
}

// addDropped counts the samples reduceProfile left out into the totals,
// and says so in a caveat.
func (p *Profile) addDropped(red *reduced, idx [4]int) {
	for k, i := range idx {
		if i >= 0 && i < len(red.droppedSums) {
			p.dropped[k] = red.droppedSums[i]
		}
	}
	p.TotalAllocBytes += p.dropped[vAllocBytes]
	p.TotalAllocObjects += p.dropped[vAllocObjects]
	p.TotalInuseBytes += p.dropped[vInuseBytes]
	p.TotalInuseObjects += p.dropped[vInuseObjects]
	p.SamplesDropped, p.DroppedBy = red.dropped, red.by
	p.Caveats = append(p.Caveats, fmt.Sprintf("%d of the profile's %d samples were read, the heaviest by %s; the %d lightest (%s) count in the totals but in no site",
		p.Samples, red.samples, red.by, red.dropped, droppedShare(p, red)))
}

// droppedShare says how much of the key sample type the dropped samples
// held, as "0.4% of alloc_space".
func droppedShare(p *Profile, red *reduced) string {
	var part, total int64
	switch red.by {
	case "alloc_space":
		part, total = p.dropped[vAllocBytes], p.TotalAllocBytes
	case "inuse_space", "space":
		part, total = p.dropped[vInuseBytes], p.TotalInuseBytes
	default:
		return "a share not known"
	}
	if total <= 0 {
		return "0% of " + red.by
	}
	return fmt.Sprintf("%.2g%% of %s", 100*float64(part)/float64(total), red.by)
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
	// ParseData rather than Parse: the data is already in memory, and
	// already decompressed within MaxDecompressed.
	return profile.ParseData(data)
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
func trimHidden(frames []Frame, stack []int32) []int32 {
	i, j := 0, len(stack)
	for i < j && frames[stack[i]].Function == "" {
		i++
	}
	for j > i && frames[stack[j-1]].Function == "" {
		j--
	}
	if i == j {
		return stack // nothing symbolized: keep the addresses
	}
	return stack[i:j]
}

// legacySamples counts the sample lines of a legacy text profile: those
// with a stack after "@".
func legacySamples(data []byte) int {
	n := 0
	for len(data) > 0 {
		var ln []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			ln, data = data[:i], data[i+1:]
		} else {
			ln, data = data, nil
		}
		if len(ln) > 0 && ln[0] != '#' && !bytes.HasPrefix(ln, []byte("heap")) && bytes.Contains(ln, []byte("] @")) {
			n++
		}
	}
	return n
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
