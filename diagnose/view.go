package diagnose

import (
	"fmt"
	"go/version"
	"strconv"
	"strings"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/figure"
	"github.com/gcdoctor/gcdoctor/internal/goversion"
)

// evidenceView is the evidence as the rules see it: the input, the GOGC it
// ran with, and what is derived from it once per diagnosis (ranked heap
// sites and lint findings, the pacer model, the cross-checks).
type evidenceView struct {
	in   *Input
	gogc int  // GOGC in effect; 100 when unset or unknown
	off  bool // GOGC=off
	// gogcKnown reports whether GOGC came from the program's environment.
	gogcKnown bool
	sites     []*HeapSite     // see heapSites
	lint      []LintFinding   // the source checks' findings, ranked
	tuning    *TuningEvidence // the pacer model, when asked for
	// crossChecks compare the gctrace with the execution trace.
	crossChecks []CrossCheck
	// hostIv are the intervals between the host samples.
	hostIv []bundle.HostInterval
}

func newEvidenceView(in *Input) *evidenceView {
	c := &evidenceView{in: in, gogc: 100, hostIv: bundle.HostIntervals(in.Host)}
	// A program run by gcdoctor had its environment observed: an unset
	// GOGC is then known to mean 100.
	c.gogcKnown = in.Run != nil
	if g := strings.TrimSpace(in.GOGC); g != "" {
		c.gogcKnown = true
		if strings.EqualFold(g, "off") {
			c.off = true
		} else if n, err := strconv.Atoi(g); err == nil {
			if n < 0 {
				c.off = true
			} else {
				c.gogc = n
			}
		}
	}
	return c
}

// tri is a three-valued answer: yes, no, or the evidence cannot tell.
type tri int

const (
	no tri = iota
	yes
	maybe
)

// goRange is the range of Go 1.x minor versions the program may be.
type goRange struct {
	min, max int // max 0: no upper bound
	exact    string
}

// goVersion returns what is known of the Go version of the program that
// printed segment s: the version given in the input, else the range its
// line format implies.
func (c *evidenceView) goVersion(s *gctrace.Segment) goRange {
	if v := c.in.GoVersion; v != "" && version.IsValid(v) {
		m := goversion.Minor(v)
		return goRange{min: m, max: m, exact: v}
	}
	if s == nil {
		return goRange{}
	}
	lo, hi := s.Format.MinorRange()
	return goRange{min: lo, max: hi}
}

// atLeast reports whether the program's Go is at least 1.m.
func (g goRange) atLeast(m int) tri {
	switch {
	case g.min >= m:
		return yes
	case g.max != 0 && g.max < m:
		return no
	}
	return maybe
}

// String describes the version for messages: "go1.21.3", "Go 1.7–1.17".
func (g goRange) String() string {
	switch {
	case g.exact != "":
		return g.exact
	case g.min == 0 && g.max == 0:
		return "an unknown Go version"
	case g.max == 0:
		return fmt.Sprintf("Go ≥ 1.%d", g.min)
	case g.min == g.max:
		return fmt.Sprintf("Go 1.%d", g.min)
	case g.min == 0:
		return fmt.Sprintf("Go ≤ 1.%d", g.max)
	}
	return fmt.Sprintf("Go 1.%d–1.%d", g.min, g.max)
}

// notes returns the caveats that apply to the whole diagnosis.
func (c *evidenceView) notes(in *Input) []string {
	var n []string
	if len(in.Log.Inputs) == 0 {
		return n // the notes below are about gctrace evidence
	}
	if in.GoVersion == "" {
		n = append(n, "Go version not given: advice follows the range each log format implies (use --go-version to be exact)")
	}
	if !c.gogcKnown {
		n = append(n, "GOGC not given: GOGC=100 (the default) is assumed")
	}
	switch {
	case in.Log.Partial() && in.Run != nil:
		n = append(n, "the program exited while the runtime was printing a gc line: that last cycle is not counted")
	case in.Log.Partial():
		n = append(n, "input ends inside a gc line: the last cycle is missing and the results are partial")
	}
	if in.Log.SegmentsDropped > 0 {
		n = append(n, fmt.Sprintf("%d segments beyond the first %d were counted but not analysed", in.Log.SegmentsDropped, len(in.Log.Segments)))
	}
	return n
}

// span returns "file:first-last" for a segment.
func span(s *gctrace.Segment) string {
	if s.FirstLine == s.LastLine {
		return fmt.Sprintf("%s:%d", s.Input, s.FirstLine)
	}
	return fmt.Sprintf("%s:%d-%d", s.Input, s.FirstLine, s.LastLine)
}

// at returns "file:line" for a line of a segment's input.
func at(s *gctrace.Segment, line int) string { return fmt.Sprintf("%s:%d", s.Input, line) }

// who names a segment in a sentence: "the process" or "the compile of
// runtime" for a "# runtime" header.
func who(s *gctrace.Segment) string {
	if s.Label != "" {
		return "the process after " + strings.TrimSpace(s.Label)
	}
	if s.Process != "" {
		return s.Process
	}
	return "the program"
}

// capWho is who(s) for the start of a sentence.
func capWho(s *gctrace.Segment) string {
	w := who(s)
	return strings.ToUpper(w[:1]) + w[1:]
}

// f1 formats a figure with three significant digits, the precision
// gctrace itself gives, as every report does (see internal/figure).
func f1(v float64) string { return figure.Num(v) }

// mb formats a size in MiB, the unit gctrace prints (as "MB").
func mb(v int64) string {
	if v >= 10240 {
		return fmt.Sprintf("%.1f GB", float64(v)/1024)
	}
	return fmt.Sprintf("%d MB", v)
}
