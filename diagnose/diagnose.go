// Package diagnose turns evidence into findings. It is the only place where
// gcdoctor decides what is wrong: analyzers such as gctrace measure, report
// renders, and the rules here judge.
//
// Each rule is a value with its documentation attached (see Rule), defined
// in its own file and registered from there, so the rule catalogue
// (docs/rules.md and `gcdoctor explain`) is generated from the same text
// that the code carries.
package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/gctrace"
)

// Severity ranks findings.
type Severity int

// Severities, in increasing order of urgency.
const (
	Info     Severity = iota // worth knowing; no action needed by itself
	Warning                  // costs CPU, latency or memory; act on it
	Critical                 // the program is in trouble: outages, OOM kills, GC always on
)

var severityNames = [...]string{"info", "warning", "critical"}

// String returns the severity's lower-case name.
func (s Severity) String() string {
	if s >= 0 && int(s) < len(severityNames) {
		return severityNames[s]
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// ParseSeverity parses a severity name as printed by String.
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(s, n) {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want info, warning or critical)", s)
}

// MarshalText encodes the severity as its name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Evidence is one measured figure that supports a finding.
type Evidence struct {
	Label  string  // what was measured, e.g. "GC CPU"
	Value  float64 // the figure
	Unit   string  // its unit: "%", "ms", "MB", "MB/s", "/s", "s", "cycles"
	Source string  // where it comes from, e.g. "app.log:12" or "app.log:1-9"
}

// Location points at input lines or source code.
type Location struct {
	File    string
	Line    int
	EndLine int // 0 when a single line
}

// String formats the location as file:line or file:line-endline.
func (l Location) String() string {
	if l.EndLine > l.Line {
		return fmt.Sprintf("%s:%d-%d", l.File, l.Line, l.EndLine)
	}
	return fmt.Sprintf("%s:%d", l.File, l.Line)
}

// Finding is one problem found in the evidence.
type Finding struct {
	ID       string   // rule ID, see docs/rules.md
	Severity Severity //
	Title    string   // the rule's title
	Message  string   // one or two sentences with the numbers that matter
	Evidence []Evidence
	Where    []Location // the input lines (or source lines) it is based on
	Remedy   string     // what to change, where and why
	Verify   string     // how to check that the change worked
	// Command is a command line that checks the fix: it collects new
	// evidence of the kind the finding rests on and compares or
	// diagnoses it. File names still to be recorded end in "-after".
	Command string
	Caveats []string // what limits the finding's accuracy
	// Segments lists the segments (processes) the finding applies to; Also
	// counts those beyond the first when one rule fired in many.
	Segments []int
	Also     int
	// rank and score order findings of the same severity: lower rank
	// first, then larger score.
	rank  int
	score float64
	// lintNote is a lint-hot finding's check message, for folding it into
	// another finding about the same line.
	lintNote string
	// lintSite is, for a lint-hot finding at a call whose bytes were
	// allocated by what it calls, the allocation site they went to: a
	// finding about that site is about the same garbage.
	lintSite *Location
}

// RunInfo describes a program run by gcdoctor, when the evidence comes from
// one.
type RunInfo struct {
	Command []string
	// ExitCode is the program's exit status (128 plus the signal's number
	// when a signal killed it), meaningful when ExitKnown: a bundle's
	// meta.json may not say.
	ExitCode  int
	ExitKnown bool
	WallS     float64 // s
	PeakRSS   int64   // bytes
	// The program's environment as it ran: Go version from its build info,
	// GOGC, GOMEMLIMIT and GOMAXPROCS as set ("" unset), the machine's
	// CPUs and the cgroup memory limit (0 when none).
	GoVersion                    string
	GOGC, GOMEMLIMIT, GOMAXPROCS string
	NumCPU                       int
	CgroupMemoryLimit            int64 // bytes
	// Stopped reports that the program was asked to stop (a SIGINT or
	// SIGTERM passed on or sent) rather than ending on its own, when
	// StopKnown: bundles written before gcdoctor recorded it cannot tell
	// a batch job from a service stopped cleanly.
	Stopped, StopKnown bool
	// Host sums up the contention of the machine's CPUs during the run,
	// nil when it was not measured.
	Host *bundle.HostSummary
}

// Input is the evidence a diagnosis is made from. Every part is optional.
type Input struct {
	Log *gctrace.Log
	// GoVersion is the Go version of the examined program ("go1.21.3"),
	// from its build info or a flag; "" when unknown, in which case each
	// segment's line format bounds the version.
	GoVersion string
	// GOGC and GOMEMLIMIT as set in the program's environment ("" unset or
	// unknown).
	GOGC, GOMEMLIMIT string
	// RSS samples of the program and its peak RSS in bytes, when it was run
	// by gcdoctor.
	RSS     []bundle.RSSSample
	PeakRSS int64
	// Host samples the contention of the machine's CPUs while the program
	// ran (gcdoctor run's host.csv), on the RSS samples' clock.
	Host []bundle.HostSample
	Run  *RunInfo
	// Heap is an allocation profile, when there is one.
	Heap *HeapEvidence
	// Trace is an analysed execution trace, when there is one.
	Trace *TraceEvidence
	// Lint is what the source checks found, when they were run.
	Lint *LintEvidence
	// Live is what the running program served about its own GC over a
	// window, when it was sampled.
	Live *LiveEvidence
	// Tune asks for tuning advice from the pacer model; nil for none.
	Tune *TuneRequest
	// Bundle is the evidence bundle the input was read from, "" when none.
	Bundle string
	// Extensions are the evidence of kinds that packages outside diagnose
	// add (see Extension).
	Extensions []Extension
	// Recheck says how the check commands collect the evidence again.
	Recheck Recheck
}

// Diagnosis is the result of Diagnose: the evidence summarised and the
// findings, most urgent first.
type Diagnosis struct {
	Log       *gctrace.Log
	GoVersion string // as given in Input, "" when inferred per segment
	GOGC      string
	Run       *RunInfo
	Findings  []Finding
	// Caveats are caveats on the diagnosis as a whole.
	Caveats []string
	// Heap is the allocation profile evidence, if any.
	Heap  *HeapEvidence
	Trace *TraceEvidence
	// Live is the running program's own figures over a window, if any.
	Live *LiveEvidence
	// Lint is the source checks' evidence, and LintRanked its findings
	// weighed by the allocation profile, heaviest line first.
	Lint       *LintEvidence
	LintRanked []LintFinding
	// Tuning is the pacer model's advice, when it was asked for.
	Tuning *TuningEvidence
	// CrossChecks compare the figures the gctrace and the execution trace
	// both give; a disagreement is also a finding (evidence-mismatch).
	CrossChecks []CrossCheck
	heapSites   []*HeapSite
	// FirstActions asks the report for a "what to do first" list (see
	// Actions): the doctor's summary of all the evidence.
	FirstActions bool
	// Extensions are the Input's, for the report's sections.
	Extensions []Extension
}

// Actions returns what to do first: at most n findings, warnings and
// critical ones before information, in the order the rules rank them (a
// pinned heap before GC CPU, code fixes before tuning), one per rule.
func (d *Diagnosis) Actions(n int) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, minSev := range []Severity{Warning, Info} {
		for _, f := range d.Findings {
			if len(out) == n {
				return out
			}
			if f.Severity < minSev || seen[f.ID] {
				continue
			}
			seen[f.ID] = true
			out = append(out, f)
		}
	}
	return out
}

// MaxSeverity returns the highest severity among the findings, and false
// when there are none.
func (d *Diagnosis) MaxSeverity() (Severity, bool) {
	if len(d.Findings) == 0 {
		return 0, false
	}
	m := Info
	for _, f := range d.Findings {
		m = max(m, f.Severity)
	}
	return m, true
}

// AtLeast returns the IDs of the findings at least as severe as limit, in
// the diagnosis's order (what --fail-on names when it fails a build).
func (d *Diagnosis) AtLeast(limit Severity) []string {
	var ids []string
	for _, f := range d.Findings {
		if f.Severity >= limit {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// FailOn returns the error --fail-on asks for when a finding is at least
// as severe as limit, nil when none is.
func (d *Diagnosis) FailOn(limit Severity) error {
	if ids := d.AtLeast(limit); len(ids) > 0 {
		return fmt.Errorf("findings at or above %s: %s", limit, strings.Join(ids, ", "))
	}
	return nil
}

// Diagnose applies every rule to the evidence.
func Diagnose(in *Input) *Diagnosis {
	if in.Log == nil {
		// Evidence without gctrace (a trace or a profile alone): rules
		// over segments simply find none.
		cp := *in
		cp.Log = &gctrace.Log{}
		in = &cp
	}
	d := &Diagnosis{Log: in.Log, GoVersion: in.GoVersion, GOGC: in.GOGC, Run: in.Run, Heap: in.Heap, Trace: in.Trace, Lint: in.Lint,
		Live: in.Live, Extensions: in.Extensions}
	ev := newEvidenceView(in)
	d.heapSites = ev.heapSites()
	if in.Lint != nil {
		d.LintRanked = rankLint(in.Lint, in.Heap)
		ev.lint = d.LintRanked
	}
	d.Tuning = tune(in.Log, in.Tune.complete(in))
	ev.tuning = d.Tuning
	runEnd := 0.0
	if in.Run != nil {
		runEnd = in.Run.WallS
	}
	d.CrossChecks = crossCheck(in.Log, in.Trace, runEnd)
	ev.crossChecks = d.CrossChecks
	var found []Finding
	for _, r := range rules {
		if r.check != nil {
			for _, s := range in.Log.Segments {
				if f := r.check(ev, s); f != nil {
					found = append(found, r.fill(f, s))
				}
			}
		}
		if r.live != nil {
			if lv := ev.live(); lv != nil {
				if f := r.live(ev, lv); f != nil {
					found = append(found, r.fill(f, nil))
				}
			}
		}
		if r.checkAll != nil {
			for _, f := range r.checkAll(ev) {
				found = append(found, r.fill(f, nil))
			}
		}
		if r.Judge != nil {
			for _, f := range r.Judge(in) {
				found = append(found, r.fill(f, nil))
			}
		}
	}
	d.Findings = foldLint(merge(found))
	for i := range d.Findings {
		if f := &d.Findings[i]; f.Command == "" {
			f.Command = ev.checkCommand(f)
		}
	}
	d.Caveats = ev.notes(in)
	return d
}

// fill sets the fields every finding of the rule shares.
func (r *Rule) fill(f *Finding, s *gctrace.Segment) Finding {
	f.ID = r.ID
	f.Title = r.Title
	if f.rank == 0 {
		f.rank = r.Rank
	}
	if s != nil {
		f.Segments = []int{s.Index}
		if len(f.Where) == 0 {
			f.Where = []Location{{File: s.Input, Line: s.FirstLine, EndLine: s.LastLine}}
		}
	}
	return *f
}

// merge keeps one finding per rule: the strongest, with the count of other
// segments where the rule fired too. A build log of 300 compiler processes
// then yields one "GC at the minimum heap" finding, not 300.
func merge(fs []Finding) []Finding {
	byID := map[string]int{}
	var out []Finding
	for _, f := range fs {
		if len(f.Segments) == 0 {
			// Not about a process but about a place (a heap site, a
			// source line): each stands alone.
			out = append(out, f)
			continue
		}
		i, ok := byID[f.ID]
		if !ok {
			byID[f.ID] = len(out)
			out = append(out, f)
			continue
		}
		best := &out[i]
		if f.Severity > best.Severity || (f.Severity == best.Severity && f.score > best.score) {
			f.Segments = append(f.Segments, best.Segments...)
			f.Also = best.Also + 1
			*best = f
		} else {
			best.Segments = append(best.Segments, f.Segments...)
			best.Also++
		}
	}
	for i := range out {
		slices.Sort(out[i].Segments)
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		if c := cmp.Compare(b.Severity, a.Severity); c != 0 {
			return c
		}
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return cmp.Compare(b.score, a.score)
	})
	return out
}

// Exit describes how the run ended: "0", "137 (signal 9)", or "unknown".
func (r *RunInfo) Exit() string {
	switch {
	case !r.ExitKnown:
		return "unknown"
	case r.ExitCode > 128 && r.ExitCode < 128+65:
		return fmt.Sprintf("%d (signal %d)", r.ExitCode, r.ExitCode-128)
	}
	return fmt.Sprint(r.ExitCode)
}
