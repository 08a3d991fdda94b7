package gctrace

import "bytes"

// ClassifyLine classifies one line of output on its own, as a Reader does
// but without the lines around it, for a program that sorts a stream as it
// passes (collect uses it to pick the runtime's lines out of a program's
// standard output). line is given without its line end.
//
// A cycle line is KindCycle, and ClassifyLine fills cy, when cy is not nil.
// A line that starts like a cycle but does not parse is KindError: most
// often a cycle line that other output cut in two, whose rest is on the
// next line, which a Reader would stitch back on. Other output in front of
// a cycle does not hide it (it is taken for a log prefix), so a cycle that
// the program's own output ran into is still KindCycle.
func ClassifyLine(line []byte, cy *Cycle) Kind {
	if isBlank(line) {
		return KindBlank
	}
	if start, ok := findCycle(line); ok {
		var c Cycle
		if cy == nil {
			cy = &c
		}
		*cy = Cycle{}
		if _, msg := parseCycle(line[start:], cy); msg != "" {
			return KindError
		}
		return KindCycle
	}
	if line[0] == '#' && len(line) > 2 && line[1] == ' ' {
		return KindHeader
	}
	if i := bytes.Index(line, bForced); i >= 0 && isBlank(line[i+len(bForced):]) {
		return KindForced
	}
	if bytes.Contains(line, bPacer) {
		return KindPacer
	}
	if i, ok := findScan(line); ok {
		var s Scan
		if _, msg := parseScan(line[i:], &s); msg != "" {
			return KindError
		}
		return KindScan
	}
	var s Scavenge
	if i := bytes.Index(line, bScvg); i >= 0 && (i == 0 || line[i-1] == ' ') {
		if parseScvg(line[i:], &s) {
			return KindScavenge
		}
		return KindText
	}
	if i := bytes.Index(line, bScav); i >= 0 && (i == 0 || line[i-1] == ' ') && parseScav(line[i:], &s) {
		return KindScavenge
	}
	return KindText
}

// IsTrace reports whether k is a kind of line the runtime's GC tracing
// writes: cycles (and cycle lines cut by other output), the "GC forced"
// marker, scavenger and pacer lines, and the scan lines of
// GODEBUG=gctrace=2.
func IsTrace(k Kind) bool {
	switch k {
	case KindCycle, KindError, KindForced, KindScavenge, KindPacer, KindScan:
		return true
	}
	return false
}
