package diagnose

import (
	"regexp"
	"strings"

	"github.com/gcdoctor/gcdoctor/escape"
	"github.com/gcdoctor/gcdoctor/heapprof"
)

// HeapEvidence is an allocation profile ranked by site, with the compiler's
// escape decisions and the source lines when they are available.
type HeapEvidence struct {
	Name    string            // the profile's file name or URL
	Profile *heapprof.Profile //
	Top     *heapprof.Top     // sites ranked by allocated bytes, charged to the user's code
	// Inuse ranks the first sites by the bytes still in use when the
	// profile was written, charged the same way; nil when the profile
	// records no in-use values.
	Inuse  *heapprof.Top
	Escape *escape.Report // nil when escape analysis was not run
	// Ops is how many requests or operations the profile covers, when
	// known, for bytes per operation; 0 when unknown.
	Ops int64
	// Source returns the text of a source line, or "" when the file is not
	// readable here. Nil means no source at all.
	Source func(file string, line int) string
}

// HeapSite is a ranked allocation site with what explains it.
type HeapSite struct {
	heapprof.Site
	Rank    int           // 1 for the site that allocates the most
	Text    string        // the source line, trimmed; "" when unavailable
	Escapes []escape.Site // the compiler's heap decisions on this line
	Pattern string        // what the line does, see classify
}

// EscapeReason summarises why the compiler put this line's values on the
// heap, e.g. "make([]byte, 10485760) escapes to heap: too large for stack".
func (s *HeapSite) EscapeReason() string {
	for _, e := range s.Escapes {
		if !e.Kind.Heap() {
			continue
		}
		msg := e.Message
		if r := e.Reasons(); len(r) > 0 {
			msg += " (" + strings.Join(r, ", ") + ")"
		}
		return msg
	}
	return ""
}

// Patterns a hot allocation site can have; each has its own rule.
const (
	patIOCopy       = "io-copy"
	patLargeBuffer  = "large-buffer"
	patAppend       = "slice-growth"
	patMap          = "map-growth"
	patConcat       = "string-concat"
	patConversion   = "conversion"
	patFmt          = "fmt"
	patLargeValue   = "large-value"
	patBoxing       = "boxing" // moved to the heap by an interface conversion or a closure
	patOther        = "other"
	minSiteShare    = 0.05     // a site must carry 5% of the bytes to be worth a finding
	minSiteBytes    = 1 << 20  // and at least 1 MiB: shares of a tiny total say nothing
	largeAllocBytes = 64 << 10 // allocations this large are worth pooling
)

var (
	reAppend     = regexp.MustCompile(`\bappend\(`)
	reClone      = regexp.MustCompile(`\bappend\(\[\][\w.]+(\(nil\)|\{\})\s*,`) // a one-shot copy, not growth
	reConcat     = regexp.MustCompile(`\+=|"\s*\+|\+\s*"`)
	reConversion = regexp.MustCompile(`\bstring\(|\[\]byte\(|\[\]rune\(`)
	reMakeMap    = regexp.MustCompile(`make\(map\[|map\[[^\]]+\][^{(]*\{`)
	reSizedMap   = regexp.MustCompile(`make\(map\[[^\]]+\][^,()]*(\([^()]*\))?[^,()]*,`) // already has a size hint
	reMapAssign  = regexp.MustCompile(`^\s*\w+(\.\w+)*\[[^\]]+\]\s*=[^=]`)
	reFmt        = regexp.MustCompile(`\bfmt\.(Sprint|Sprintf|Sprintln|Errorf)\(`)
	// reBoxedValue matches what escape analysis names when it puts a
	// value on the heap to convert it to an interface: the converted
	// expression itself (a variable, a field, *p), or any(x) written out.
	reBoxedValue = regexp.MustCompile(`^(\*?[\pL_][\pL\pN_]*(\.[\pL_][\pL\pN_]*)*|any\(.+\)|interface ?\{\}\(.+\))$`)
)

// classify names what a hot site does, from the function that really
// allocated, the compiler's escape decisions and the source line.
func classify(s *HeapSite) string {
	via := s.Via
	switch {
	case strings.HasPrefix(via, "io.copyBuffer") || strings.HasPrefix(via, "io.ReadAll") || strings.HasPrefix(via, "io.Copy"):
		return patIOCopy
	case strings.HasPrefix(via, "fmt."):
		return patFmt
	}
	for _, e := range s.Escapes {
		if e.Kind == escape.TooLarge && !strings.HasPrefix(e.Expr, "make(") {
			return patLargeValue
		}
	}
	if boxed(s) {
		return patBoxing
	}
	t := s.Text
	switch {
	case t == "" && s.AvgSize >= largeAllocBytes:
		return patLargeBuffer
	case t == "":
		return patOther
	case reAppend.MatchString(t) && !reClone.MatchString(t):
		return patAppend
	case reFmt.MatchString(t):
		return patFmt
	case (reMakeMap.MatchString(t) && !reSizedMap.MatchString(t)) || reMapAssign.MatchString(t):
		return patMap
	case reConcat.MatchString(t):
		return patConcat
	case reConversion.MatchString(t):
		return patConversion
	case s.AvgSize >= largeAllocBytes:
		return patLargeBuffer
	}
	return patOther
}

// boxed reports whether the compiler moved the line's value to the heap
// because it was converted to an interface or captured by a closure, with
// no more specific pattern (append, +=, a large buffer) on the line.
//
// The explanation says "interface-converted" only when the converted value
// is a pointer; a value put in an interface (sink = v, f(v) for a
// parameter of type any) reads "v escapes to heap" with the reason
// "spill". A variable's value is allocated apart from the variable (which
// would be "moved to heap: v") for no other reason, so a heap decision
// about a bare variable or field counts as boxing too ("append escapes to
// heap" is append's new array).
func boxed(s *HeapSite) bool {
	t := s.Text
	if t != "" && (reAppend.MatchString(t) || reConcat.MatchString(t) || reFmt.MatchString(t)) {
		return false
	}
	// A value stored in a map or converted on the same line: the map's
	// growth or the copy is the more specific pattern.
	other := t != "" && (reMakeMap.MatchString(t) || reMapAssign.MatchString(t) || reConversion.MatchString(t))
	for _, e := range s.Escapes {
		if e.Kind == escape.EscapesToHeap && e.Expr != "append" && !other && reBoxedValue.MatchString(e.Expr) {
			return true
		}
		for _, r := range e.Reasons() {
			if r == "interface-converted" || r == "captured by a closure" {
				return true
			}
		}
	}
	return false
}

// heapSites returns the ranked sites with their explanations, computed once
// per diagnosis.
func (c *evidenceView) heapSites() []*HeapSite {
	if c.sites != nil || c.in.Heap == nil || c.in.Heap.Top == nil {
		return c.sites
	}
	h := c.in.Heap
	for i, s := range h.Top.Sites {
		hs := &HeapSite{Site: s, Rank: i + 1}
		if h.Source != nil && s.File != "" && s.Line > 0 {
			hs.Text = strings.TrimSpace(h.Source(s.File, s.Line))
		}
		if h.Escape != nil {
			hs.Escapes = h.Escape.At(s.File, s.Line)
		}
		hs.Pattern = classify(hs)
		c.sites = append(c.sites, hs)
	}
	return c.sites
}

// HeapSites returns the diagnosis's ranked allocation sites, with the
// source lines, escape decisions and patterns the rules used.
func (d *Diagnosis) HeapSites() []*HeapSite { return d.heapSites }
