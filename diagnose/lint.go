package diagnose

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/gcdoctor/gcdoctor/heapprof"
)

// LintEvidence is what the source checks (gcdoctor lint) found in the
// program's code.
type LintEvidence struct {
	Patterns []string // the package patterns checked, e.g. ./...
	Findings []LintFinding
	// Broken names the packages that did not compile; they were checked as
	// far as their syntax and types allowed.
	Broken []string
}

// LintFinding is one source-check diagnostic, weighed by the allocation
// profile when there is one.
type LintFinding struct {
	Rule    string // the check, e.g. "timeafterloop"
	Title   string // what the check looks for
	File    string // as the checker reported it
	Line    int
	Column  int
	Message string
	Fixable bool // gcdoctor lint --fix can apply the change

	// Weighed reports that an allocation profile was there to weigh the
	// line; Bytes and Share are then the bytes the profile charges to the
	// line (to the user's code, as the heap sites are) and their share of
	// all the bytes it allocated. A weighed finding with no bytes is in
	// code the profile never saw allocate: cold code, or a path the load
	// did not exercise.
	Weighed bool
	Bytes   int64
	Share   float64
	// HeapRank is the line's rank among the profile's allocation sites
	// (1 = the most bytes); 0 when it is not one of them.
	HeapRank int
	// Through reports that Bytes were allocated not at the line but in
	// what it calls: a call to a helper that allocates (newBuf() making
	// a buffer), which the sites charge to the helper's own line.
	Through bool
	// ThroughSite is then the heaviest allocation site whose heaviest
	// stack passes through the line, nil when none does.
	ThroughSite *Location
}

// Location returns where the finding is.
func (f *LintFinding) Location() Location { return Location{File: f.File, Line: f.Line} }

// rankLint weighs each finding by the allocation profile and orders them:
// the heaviest line first, lines that allocate nothing last. Without a
// profile the order is the checker's (by file and line).
func rankLint(l *LintEvidence, h *HeapEvidence) []LintFinding {
	out := slices.Clone(l.Findings)
	if h == nil || h.Profile == nil {
		return out
	}
	sites := h.Profile.Top(heapprof.SiteOptions{})
	idx := newLineIndex(sites.Sites)
	var lines []heapprof.Line
	var through lineIndex
	for i := range out {
		f := &out[i]
		f.Weighed = true
		if j, ok := idx.lookup(f.File, f.Line); ok {
			s := sites.Sites[j]
			f.Bytes, f.Share, f.HeapRank = s.AllocBytes, s.Share, j+1
			continue
		}
		// Not an allocation site itself: what was allocated through the
		// line, by the functions it calls.
		if through == nil {
			lines = h.Profile.Lines()
			through = newLineIndex(linePlaces(lines))
		}
		if j, ok := through.lookup(f.File, f.Line); ok && lines[j].AllocBytes > 0 {
			f.Bytes, f.Share, f.Through = lines[j].AllocBytes, lines[j].Share, true
			f.ThroughSite = siteThrough(sites.Sites, lines[j])
		}
	}
	slices.SortStableFunc(out, func(a, b LintFinding) int {
		switch {
		case a.Bytes > b.Bytes:
			return -1
		case a.Bytes < b.Bytes:
			return 1
		}
		return 0
	})
	return out
}

// lineIndex finds the profile's site for a source line. The paths differ
// in form: the checker reports files as they are on this machine (absolute
// or relative to the module), the profile as they were recorded when the
// binary was built (absolute build paths, or module-qualified with
// -trimpath). A site matches when the line agrees and the shorter path is
// a suffix of the longer at a path boundary, or both end in the same file
// name and two directories.
type lineIndex map[lineKey][]lineSite

type lineKey struct {
	base string
	line int
}

type lineSite struct {
	parts []string // the cleaned path split on "/"
	index int      // in the ranked sites
}

// siteThrough returns the heaviest of sites (ranked, heaviest first)
// whose heaviest stack passes through line l, or nil.
func siteThrough(sites []heapprof.Site, l heapprof.Line) *Location {
	for _, s := range sites {
		for _, fr := range s.Stack {
			if fr.File == l.File && fr.Line == l.Line {
				return &Location{File: s.File, Line: s.Line}
			}
		}
	}
	return nil
}

// linePlaces returns lines as sites with their place alone, for
// newLineIndex.
func linePlaces(lines []heapprof.Line) []heapprof.Site {
	out := make([]heapprof.Site, len(lines))
	for i, l := range lines {
		out[i] = heapprof.Site{File: l.File, Line: l.Line}
	}
	return out
}

func newLineIndex(sites []heapprof.Site) lineIndex {
	idx := lineIndex{}
	for i, s := range sites {
		if s.File == "" || s.Line <= 0 {
			continue
		}
		p := splitPath(s.File)
		k := lineKey{p[len(p)-1], s.Line}
		idx[k] = append(idx[k], lineSite{p, i})
	}
	return idx
}

func (idx lineIndex) lookup(file string, line int) (int, bool) {
	p := splitPath(file)
	best, bestLen := -1, 0
	for _, c := range idx[lineKey{p[len(p)-1], line}] {
		n, same := sameFile(p, c.parts)
		if same && n > bestLen {
			best, bestLen = c.index, n
		}
	}
	return best, best >= 0
}

func splitPath(file string) []string {
	return strings.Split(filepath.ToSlash(filepath.Clean(file)), "/")
}

// sameFile reports whether two split paths name the same file: one ends
// with the other, or they share the file name and at least two directories
// (two checkouts of one module). encoding/xml/encode.go is not
// encoding/json/encode.go. It also returns the elements they share.
func sameFile(a, b []string) (int, bool) {
	n := commonSuffix(a, b)
	return n, n > 0 && (n == min(len(a), len(b)) || n >= 3)
}

// commonSuffix counts the path elements a and b share at their ends.
func commonSuffix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}
