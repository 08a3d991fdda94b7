package gctrace

import (
	"math"
	"unicode/utf8"
)

// Segment is the run of one process: the cycles of one GC counter.
type Segment struct {
	Index     int    // position in Log.Segments
	Input     string // name of the input the segment came from
	Label     string // the go command's "# pkg" header before it, if any
	Process   string // process tag from the log prefix, if any
	Format    Format // format of its cycle lines
	FirstLine int    // line of the first cycle
	LastLine  int    // line of the last cycle
	Summary   Summary
	// Cycles holds the segment's cycles in input order when
	// Options.KeepCycles is set. The Log keeps at most Options.MaxCycles
	// cycles over all its segments, first come first kept: once the
	// budget runs out, Cycles holds the segment's first cycles only (or
	// none) and CyclesTruncated is set; Log.CyclesDropped counts the rest.
	// Summary always covers every cycle, so a figure computed from Cycles
	// of a truncated segment must use the span of those cycles,
	// CyclesWallS, not Summary.WallS.
	Cycles          []Cycle
	CyclesTruncated bool
	// Scavenges counts scavenger lines attributed to the segment.
	Scavenges int
	// Caveats are caveats on the segment's figures, as sentences.
	Caveats []string

	acc *accum
	// lastUse orders open segments for closing the least recently used.
	lastUse int
	// slot is the segment's index in segmenter.open while it is open.
	slot int
	// interval is the time between its last two cycles, s (0 if unknown).
	interval float64
	// unlisted: the segment is beyond Options.MaxSegments, so its cycles
	// are summarised but not kept.
	unlisted bool
	// replayed: a cycle of the segment ends after the run did
	// (Options.RunS), so the segment is old output printed again.
	replayed bool
}

// CyclesWallS returns the wall-clock time the kept cycles (Cycles) cover,
// in seconds: from the start of the first to the end of the last, as
// Summary.WallS is for all of them. It equals Summary.WallS unless
// CyclesTruncated is set. Rates over the kept cycles (cycles per second,
// allocation per second, CPU shares) divide by it. It is NaN when no cycle
// was kept or the format has no timestamps (Go 1.4 and older).
func (s *Segment) CyclesWallS() float64 {
	if len(s.Cycles) == 0 {
		return math.NaN()
	}
	first, last := &s.Cycles[0], &s.Cycles[len(s.Cycles)-1]
	if !first.HasAt || !last.HasAt {
		return math.NaN()
	}
	return last.At + last.Wall()/1000 - first.At
}

// last returns the segment's most recent cycle.
func (s *Segment) last() *Cycle { return &s.acc.prev }

// segmenter assigns cycles to segments as they stream in.
//
// A new segment starts when a cycle cannot continue any open one: its number
// is 1, or no open segment of the same process tag and format has a smaller
// number and an earlier time. When several can continue, the one whose last
// cycle is closest in number, then in time, then has the same P count wins:
// this is what separates two processes that write to one stream at the same
// time, such as the go command and the compiler it runs. The go command
// prints each compiler run's output as one block after a "# pkg" header, so
// the cycles of a block belong to the process that block started.
type segmenter struct {
	log      *Log
	open     []*Segment
	tick     int
	label    string          // pending "# pkg" header
	block    *Segment        // segment started right after the last header
	recent   *Segment        // the segment extended last
	periodic map[string]bool // pending "GC forced" per process tag
	opts     *Options
	retained int
	// lastNum[i] is the last cycle number of open[i]: scanning this small
	// array finds the usual next cycle's segment without touching the
	// segments themselves.
	lastNum []int
}

// maxLabel bounds the bytes of a "# pkg" header kept as a segment's label:
// an import path and a test binary's name fit many times over.
const maxLabel = 512

// clip returns b as a string of at most n bytes, cut at a character
// boundary.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "…"
}

// maxOpen bounds the segments that can still receive cycles. A process
// whose segment was closed and that prints again starts a new segment; 64
// concurrent writers to one stream is far beyond what a build produces.
const maxOpen = 64

func (sg *segmenter) header(text []byte) {
	sg.label = clip(text, maxLabel)
	sg.block = nil
}

func (sg *segmenter) forced(process string) {
	if sg.periodic == nil {
		sg.periodic = make(map[string]bool)
	}
	sg.periodic[process] = true
}

// forcedAfter marks the last cycle of the process as the periodic GC.
func (sg *segmenter) forcedAfter(process string) {
	if s := sg.latest(process); s != nil && !s.acc.prev.Periodic {
		s.acc.prev.Periodic = true
		s.acc.s.Periodic++
	}
}

// latest returns the most recently extended open segment of the process.
func (sg *segmenter) latest(process string) *Segment {
	if r := sg.recent; r != nil && r.Process == process {
		return r
	}
	var best *Segment
	for _, s := range sg.open {
		if s.Process == process && (best == nil || s.lastUse > best.lastUse) {
			best = s
		}
	}
	return best
}

func (sg *segmenter) scavenge(process string) {
	// Attribute to the most recently extended open segment of the process.
	if s := sg.latest(process); s != nil {
		s.Scavenges++
	}
}

// scan attributes a scan line of GODEBUG=gctrace=2 to the last cycle of
// its process, which the runtime printed just before it.
func (sg *segmenter) scan(process string, sc *Scan) {
	s := sg.latest(process)
	if s == nil || !s.acc.addScan(sc) || sc.Class != 0 {
		return
	}
	if n := len(s.Cycles); n > 0 && s.Cycles[n-1].Line == s.acc.prev.Line {
		s.Cycles[n-1].HasScan, s.Cycles[n-1].Scan = true, sc.ScanCounts
	}
}

func (sg *segmenter) cycle(input string, c *Cycle) {
	sg.tick++
	if sg.periodic[c.Process] {
		c.Periodic = true
		delete(sg.periodic, c.Process)
	}
	seg := sg.pick(c)
	if seg == nil {
		seg = sg.start(input, c)
	}
	if l := seg.last(); seg.acc.s.Cycles > 0 && c.HasAt && l.HasAt {
		seg.interval = c.At - l.At
	}
	if sg.late(c) {
		seg.replayed = true
	}
	sg.lastNum[seg.slot] = c.Num
	sg.recent = seg
	seg.lastUse = sg.tick
	seg.LastLine = c.Line
	seg.acc.add(c)
	if !sg.opts.KeepCycles || seg.unlisted {
		return
	}
	if sg.retained < sg.opts.MaxCycles {
		seg.Cycles = append(seg.Cycles, *c)
		sg.retained++
	} else {
		seg.CyclesTruncated = true
		sg.log.CyclesDropped++
	}
}

func (sg *segmenter) pick(c *Cycle) *Segment {
	if c.Num <= 1 {
		return nil
	}
	// The smallest gap in numbering wins. It is nearly always 1 and nearly
	// always unique, so look there first.
	minGap, n := 0, 0
	var only *Segment
	for i, num := range sg.lastNum {
		if num == c.Num-1 {
			if _, ok := sg.gap(sg.open[i], c); ok {
				minGap, only = 1, sg.open[i]
				n++
			}
		}
	}
	if n == 0 {
		for _, s := range sg.open {
			if gap, ok := sg.gap(s, c); ok {
				switch {
				case n == 0 || gap < minGap:
					minGap, n, only = gap, 1, s
				case gap == minGap:
					n++
				}
			}
		}
	}
	if n <= 1 {
		return only
	}
	var best *Segment
	var bestBlock bool
	var bestScore float64
	for _, s := range sg.open {
		if gap, ok := sg.gap(s, c); !ok || gap != minGap {
			continue
		}
		block := s == sg.block
		score := continuity(s, c)
		if best == nil || (block && !bestBlock) || (block == bestBlock && score < bestScore) {
			best, bestBlock, bestScore = s, block, score
		}
	}
	return best
}

// continuity scores how unlikely it is that c continues segment s: 0 for
// a perfect fit. Three things change smoothly within one process and
// jump between processes: a cycle starts when the heap nears the goal the
// last cycle set, cycles come at a fairly regular interval, and the
// runtime's cumulative GC CPU percentage moves little from one cycle to
// the next.
func continuity(s *Segment, c *Cycle) float64 {
	l := s.last()
	score := 0.0
	if c.Util >= 0 && l.Util >= 0 {
		score += math.Abs(float64(c.Util-l.Util)) / 5
	}
	if c.Forced {
		// runtime.GC starts a cycle whatever the heap and whenever the
		// program calls it: heap and interval say nothing here.
		return score
	}
	ref := l.HeapGoal
	if ref < 0 {
		ref = l.HeapEnd
	}
	// The trigger sits below the goal, so a cycle starts a little under
	// it; starting above another process's goal is the less likely story.
	d := math.Log(float64(c.HeapStart+1) / (0.9*float64(ref) + 1))
	if d > 0 {
		d *= 2
	}
	score += math.Abs(d)
	if l.Procs != c.Procs {
		score++
	}
	if c.HasAt && l.HasAt && s.interval > 0 {
		dt := c.At - l.At
		score += 0.5 * math.Abs(math.Log((dt+1e-3)/(s.interval+1e-3)))
	}
	return score
}

// late reports whether c ends after the run did (Options.RunS), and so
// was not collected during the run.
func (sg *segmenter) late(c *Cycle) bool {
	return sg.opts.RunS > 0 && c.HasAt && c.At+c.Wall()/1000 > sg.opts.RunS+replaySlackS
}

// gap reports how many numbers c skips after segment s's last cycle, and
// whether c can continue s at all (same process tag and format, a larger
// number, a later time, and late if s is replayed: the cycles of a process
// only come later).
func (sg *segmenter) gap(s *Segment, c *Cycle) (int, bool) {
	if s.Process != c.Process || s.Format != c.Format || s.replayed && !sg.late(c) {
		return 0, false
	}
	l := s.last()
	if l.Num >= c.Num || (c.HasAt && l.HasAt && c.At < l.At) {
		return 0, false
	}
	return c.Num - l.Num, true
}

func (sg *segmenter) start(input string, c *Cycle) *Segment {
	if len(sg.open) >= maxOpen {
		oldest := 0
		for i, s := range sg.open {
			if s.lastUse < sg.open[oldest].lastUse {
				oldest = i
			}
		}
		if sg.open[oldest] == sg.block {
			sg.block = nil
		}
		sg.close(sg.open[oldest])
		if sg.open[oldest] == sg.recent {
			sg.recent = nil
		}
		sg.open = append(sg.open[:oldest], sg.open[oldest+1:]...)
		sg.lastNum = append(sg.lastNum[:oldest], sg.lastNum[oldest+1:]...)
		for i, s := range sg.open[oldest:] {
			s.slot = oldest + i
		}
	}
	s := &Segment{
		Input:     input,
		Process:   c.Process,
		Format:    c.Format,
		FirstLine: c.Line,
		acc:       newAccum(sg.opts.minHeapMB()),
	}
	if c.Num <= 1 && sg.label != "" {
		s.Label = sg.label
		sg.label = ""
		sg.block = s
	}
	s.slot = len(sg.open)
	sg.open = append(sg.open, s)
	sg.lastNum = append(sg.lastNum, 0)
	s.unlisted = !sg.log.addSegment(s)
	return s
}

// close finalises a segment: its summary is computed and its accumulator
// released.
func (sg *segmenter) close(s *Segment) {
	s.Summary = s.acc.finish()
	s.Caveats = append(s.Caveats, warnings(s)...)
	s.acc = nil
}

// closeAll finalises every open segment, in the order they were opened.
func (sg *segmenter) closeAll() {
	for _, s := range sg.open {
		sg.close(s)
	}
	sg.open = nil
	sg.lastNum = nil
	sg.recent = nil
}
