package heapprof

import (
	"container/heap"
	"errors"
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// The bounds on what Read hands to the profile parser. Its in-memory form
// of a profile takes five to ten times the protocol buffer's size, and the
// analysis a little more per sample, so these bound memory whatever the
// input. A real Go heap profile has a few thousand to a few tens of
// thousands of samples (one per distinct allocation stack).
var (
	// MaxSamples bounds the samples Read keeps. Beyond it, the heaviest
	// samples by allocated bytes (in-use bytes for a profile without
	// allocation figures) are kept, up to MaxStackFrames frames over all
	// their stacks, with the locations and functions they use; the others
	// still count in the profile's totals and are reported in
	// Profile.SamplesDropped.
	MaxSamples = 200_000
	// MaxStackFrames bounds the stack locations over all kept samples.
	MaxStackFrames = 4_000_000
	// MaxStrings bounds the string table of a profile; a profile with more
	// strings is refused, since strings cannot be dropped without
	// rewriting every reference to them.
	MaxStrings = 4_000_000
)

// Field numbers of profile.proto, the protocol buffer pprof profiles use
// (github.com/google/pprof/proto/profile.proto).
const (
	profSampleType  = 1 // Profile.sample_type: repeated ValueType
	profSample      = 2 // Profile.sample: repeated Sample
	profLocation    = 4 // Profile.location: repeated Location
	profFunction    = 5 // Profile.function: repeated Function
	profStringTable = 6 // Profile.string_table: repeated string

	valueTypeType = 1 // ValueType.type: index into the string table

	sampleLocationID = 1 // Sample.location_id: repeated uint64
	sampleValue      = 2 // Sample.value: repeated int64

	locationID   = 1 // Location.id
	locationLine = 4 // Location.line: repeated Line
	lineFunction = 1 // Line.function_id

	functionID = 1 // Function.id
)

// reduced says what reduceProfile left out of a profile.
type reduced struct {
	samples int    // samples in the profile
	dropped int    // samples left out
	by      string // sample type the kept samples were chosen by
	// droppedSums are the values of the dropped samples, by sample type
	// in profile order.
	droppedSums []int64
}

// errBadProto stops the reduction of a protocol buffer it cannot walk;
// the profile parser then reports what is wrong with it.
var errBadProto = errors.New("malformed protocol buffer")

// field is one field of an encoded message.
type field struct {
	num        protowire.Number
	typ        protowire.Type
	start, end int // the whole field, tag included
	// val is the value of a length-delimited field, or the encoded value
	// of a varint field.
	val []byte
}

// walk calls fn for each field of the encoded message b, in order.
func walk(b []byte, fn func(f field) error) error {
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return errBadProto
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return errBadProto
		}
		f := field{num: num, typ: typ, start: off, end: off + n + m}
		switch typ {
		case protowire.BytesType:
			f.val, _ = protowire.ConsumeBytes(b[off+n:])
		case protowire.VarintType:
			f.val = b[off+n : f.end]
		}
		if err := fn(f); err != nil {
			return err
		}
		off = f.end
	}
	return nil
}

// varints calls fn for each value of a repeated varint field, packed or
// not, and returns how many there were.
func varints(f field, fn func(v uint64)) (int, error) {
	if f.typ != protowire.VarintType && f.typ != protowire.BytesType {
		return 0, nil
	}
	n := 0
	for b := f.val; len(b) > 0; n++ {
		v, m := protowire.ConsumeVarint(b)
		if m < 0 {
			return n, errBadProto
		}
		if fn != nil {
			fn(v)
		}
		b = b[m:]
	}
	return n, nil
}

// messageID returns the last value of the varint field num of an encoded
// message, 0 when it has none.
func messageID(msg []byte, num protowire.Number) uint64 {
	var id uint64
	walk(msg, func(g field) error {
		if g.num == num {
			varints(g, func(v uint64) { id = v })
		}
		return nil
	})
	return id
}

// sampleFigures returns the first n values of an encoded Sample (zero
// where it has fewer) and the number of its locations.
func sampleFigures(msg []byte, n int) ([]int64, int, error) {
	vals := make([]int64, 0, n)
	depth := 0
	err := walk(msg, func(g field) error {
		switch g.num {
		case sampleValue:
			_, err := varints(g, func(v uint64) {
				if len(vals) < n {
					vals = append(vals, int64(v))
				}
			})
			return err
		case sampleLocationID:
			d, err := varints(g, nil)
			depth += d
			return err
		}
		return nil
	})
	for len(vals) < n {
		vals = append(vals, 0)
	}
	return vals, depth, err
}

// idSet is a set of ids, sorted for binary search: a few bytes per id
// where a map takes tens.
type idSet []uint64

func (s *idSet) add(id uint64) { *s = append(*s, id) }

func (s *idSet) seal() {
	slices.Sort(*s)
	*s = slices.Compact(*s)
}

func (s idSet) has(id uint64) bool {
	_, ok := slices.BinarySearch(s, id)
	return ok
}

// reduceProfile bounds an uncompressed protocol buffer profile to
// MaxSamples samples and MaxStackFrames stack locations, rewriting data in
// place, and refuses one with more than MaxStrings strings. It returns the
// data to parse and what was dropped (nil when nothing was). A buffer it
// cannot walk is returned as it is, for the parser to report on.
func reduceProfile(data []byte) ([]byte, *reduced, error) {
	c, err := countProfile(data)
	if err != nil {
		return data, nil, nil
	}
	if c.strs > MaxStrings {
		return nil, nil, fmt.Errorf("%d strings in the profile's string table, more than the %d this reader takes", c.strs, MaxStrings)
	}
	if c.samples <= MaxSamples && c.frames <= MaxStackFrames && c.locations <= MaxStackFrames {
		return data, nil, nil
	}
	if len(c.typeIdx) == 0 || len(c.typeIdx) > 64 {
		return data, nil, nil // not a heap profile: the parser says so
	}
	names := stringsAt(data, c.typeIdx)
	key := keyType(names)
	nv := len(c.typeIdx)
	red := &reduced{samples: c.samples, by: names[key], droppedSums: make([]int64, nv)}

	keep := heaviestSamples(data, key, nv)
	kept := func(ord int32) bool {
		_, ok := slices.BinarySearch(keep, ord)
		return ok
	}
	locs, funcs := usedIDs(data, kept)
	return rewrite(data, red, kept, locs, funcs), red, nil
}

// profileCounts are the sizes of an encoded profile.
type profileCounts struct {
	samples, strs, locations int
	frames                   int      // locations over all samples' stacks
	typeIdx                  []uint64 // string index of each sample type's name
}

// countProfile measures an encoded profile without decoding it.
func countProfile(data []byte) (profileCounts, error) {
	var c profileCounts
	err := walk(data, func(f field) error {
		switch f.num {
		case profSample:
			c.samples++
			_, d, err := sampleFigures(f.val, 0)
			c.frames += d
			return err
		case profStringTable:
			c.strs++
		case profSampleType:
			c.typeIdx = append(c.typeIdx, messageID(f.val, valueTypeType))
		case profLocation:
			c.locations++
		}
		return nil
	})
	return c, err
}

// heaviestSamples returns the positions, in order, of the samples to keep:
// the MaxSamples heaviest by the sample type key, then as many of those as
// the frame budget takes, heaviest first. nv is the number of sample types.
func heaviestSamples(data []byte, key, nv int) []int32 {
	h := &sampleHeap{}
	ord := int32(0)
	walk(data, func(f field) error {
		if f.num != profSample {
			return nil
		}
		vals, depth, _ := sampleFigures(f.val, nv)
		e := sampleEntry{key: vals[key], ord: ord, depth: int32(min(depth, MaxStackFrames+1))}
		ord++
		if h.Len() < MaxSamples {
			heap.Push(h, e)
		} else if h.less(h.s[0], e) {
			h.s[0] = e
			heap.Fix(h, 0)
		}
		return nil
	})
	byWeight := h.s
	slices.SortFunc(byWeight, func(a, b sampleEntry) int {
		if h.less(a, b) {
			return 1
		}
		return -1
	})
	var keep []int32
	budget := MaxStackFrames
	for _, e := range byWeight {
		if int(e.depth) <= budget {
			budget -= int(e.depth)
			keep = append(keep, e.ord)
		}
	}
	slices.Sort(keep)
	return keep
}

// usedIDs returns the ids of the locations the kept samples use, and of
// the functions those locations use.
func usedIDs(data []byte, kept func(ord int32) bool) (locs, funcs idSet) {
	ord := int32(0)
	walk(data, func(f field) error {
		if f.num == profSample {
			if kept(ord) {
				walk(f.val, func(g field) error {
					if g.num == sampleLocationID {
						varints(g, locs.add)
					}
					return nil
				})
			}
			ord++
		}
		return nil
	})
	locs.seal()
	walk(data, func(f field) error {
		if f.num == profLocation && locs.has(messageID(f.val, locationID)) {
			walk(f.val, func(g field) error {
				if g.num == locationLine && g.typ == protowire.BytesType {
					funcs.add(messageID(g.val, lineFunction))
				}
				return nil
			})
		}
		return nil
	})
	funcs.seal()
	return locs, funcs
}

// rewrite drops from data, in place, the samples not kept and the
// locations and functions not used, counting the dropped samples in red.
// Every field kept moves back or stays.
func rewrite(data []byte, red *reduced, kept func(ord int32) bool, locs, funcs idSet) []byte {
	nv := len(red.droppedSums)
	out := data[:0]
	ord := int32(0)
	walk(data, func(f field) error {
		keepIt := true
		switch f.num {
		case profSample:
			if keepIt = kept(ord); !keepIt {
				vals, _, _ := sampleFigures(f.val, nv)
				for i, v := range vals {
					red.droppedSums[i] += v
				}
				red.dropped++
			}
			ord++
		case profLocation:
			keepIt = locs.has(messageID(f.val, locationID))
		case profFunction:
			keepIt = funcs.has(messageID(f.val, functionID))
		}
		if keepIt {
			out = append(out, data[f.start:f.end]...)
		}
		return nil
	})
	return out
}

// stringsAt returns the strings at the given indices of the profile's
// string table.
func stringsAt(data []byte, idx []uint64) []string {
	out := make([]string, len(idx))
	i := uint64(0)
	walk(data, func(f field) error {
		if f.num != profStringTable {
			return nil
		}
		for k, want := range idx {
			if want == i {
				out[k] = string(f.val)
			}
		}
		i++
		return nil
	})
	return out
}

// keyType picks the sample type that says which samples matter most:
// allocated bytes, else bytes in use, else the first.
func keyType(names []string) int {
	for _, want := range []string{"alloc_space", "inuse_space", "space"} {
		if i := slices.Index(names, want); i >= 0 {
			return i
		}
	}
	return 0
}

// sampleEntry is a sample in the running selection of the heaviest.
type sampleEntry struct {
	key   int64 // its value of the key sample type
	ord   int32 // position in the profile
	depth int32 // locations on its stack
}

// sampleHeap keeps the lightest selected sample on top. Of two samples of
// the same weight the later one is lighter, so the first ones are kept.
type sampleHeap struct{ s []sampleEntry }

func (h *sampleHeap) less(a, b sampleEntry) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.ord > b.ord
}
func (h *sampleHeap) Len() int           { return len(h.s) }
func (h *sampleHeap) Less(i, j int) bool { return h.less(h.s[i], h.s[j]) }
func (h *sampleHeap) Swap(i, j int)      { h.s[i], h.s[j] = h.s[j], h.s[i] }
func (h *sampleHeap) Push(x any)         { h.s = append(h.s, x.(sampleEntry)) }
func (h *sampleHeap) Pop() any {
	e := h.s[len(h.s)-1]
	h.s = h.s[:len(h.s)-1]
	return e
}
