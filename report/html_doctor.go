package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// crossHTML is the page's account of the gctrace checked against the
// execution trace; nil without both.
func crossHTML(d *diagnose.Diagnosis, _ HTMLOptions) (*htmlSection, error) {
	if len(d.CrossChecks) == 0 {
		return nil, nil
	}
	s := &htmlSection{ID: "cross", Title: "Cross-checks",
		Intro: "Figures the gctrace and the execution trace both give: they must agree when both come from the same process."}
	s.Table = &htmlTable{Head: []string{"figure", "verdict", "gctrace", "trace", "meaning"}, Num: make([]bool, 5)}
	for _, c := range d.CrossChecks {
		v := "agree"
		if !c.Agree {
			v = "DISAGREE"
		}
		s.Table.Rows = append(s.Table.Rows, []string{c.What, v, c.GCTrace, c.Trace, c.Note})
	}
	return s, nil
}

// lintHTML lists the source checks' findings, heaviest line first; nil
// when the checks were not run.
func lintHTML(d *diagnose.Diagnosis, _ HTMLOptions) (*htmlSection, error) {
	l := d.Lint
	if l == nil {
		return nil, nil
	}
	s := &htmlSection{ID: "lint", Title: "Source checks",
		Intro: fmt.Sprintf("gcdoctor lint %s: %s.", strings.Join(l.Patterns, " "), plural(len(d.LintRanked), "finding"))}
	weighed := len(d.LintRanked) > 0 && d.LintRanked[0].Weighed
	if weighed {
		s.Intro += " Ranked by the bytes the allocation profile charges to each line; cold lines allocated nothing under the profiled load."
	}
	if len(l.Broken) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s did not compile and were checked as far as possible: %s", plural(len(l.Broken), "package"), strings.Join(l.Broken, ", ")))
	}
	if len(d.LintRanked) == 0 {
		return s, nil
	}
	s.Table = &htmlTable{Head: []string{"allocated", "share", "where", "check", "message"}, Num: []bool{true, true, false, false, false}}
	for _, f := range d.LintRanked {
		alloc, share := "–", "–"
		if weighed {
			alloc, share = "cold", "cold"
			if f.Bytes > 0 {
				alloc, share = fmtBytes(f.Bytes), fmt.Sprintf("%.1f%%", f.Share*100)
			}
		}
		check := f.Rule
		if f.Fixable {
			check += " (fix)"
		}
		s.Table.Rows = append(s.Table.Rows, []string{alloc, share, fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line), check, f.Message})
	}
	return s, nil
}

// tuningHTML shows the pacer model's predictions; nil when no model was
// asked for.
func tuningHTML(d *diagnose.Diagnosis, _ HTMLOptions) (*htmlSection, error) {
	tu := d.Tuning
	if tu == nil {
		return nil, nil
	}
	s := &htmlSection{ID: "tuning", Title: "Tuning (pacer model)"}
	if tu.Model == nil {
		s.Missing = append(s.Missing, "No model: "+tu.Err)
		return s, nil
	}
	s.Intro = tu.Describe()
	s.Table = &htmlTable{Head: []string{"setting", "GC cycles", "GC CPU", "peak heap", "RSS estimate", "death-spiral risk"},
		Num: []bool{false, true, true, true, true, false}}
	row := func(label string, p pacer.Prediction) {
		s.Table.Rows = append(s.Table.Rows, []string{label, fmt.Sprintf("%.0f", p.Cycles.Value),
			fmt.Sprintf("%.1f%%", p.GCCPUFraction.Value*100), fmtBytes(int64(p.PeakHeap.Value)), fmtBytes(int64(p.RSS.Value)), p.Risk.String()})
	}
	row(tu.Model.Observed.String()+" (now)", tu.Baseline)
	for _, p := range tu.Alternatives {
		row(p.Setting.String(), p)
	}
	if r := tu.Recommendation; r != nil {
		row(r.Setting.String()+" (advised)", r.Expected)
		s.Warnings = append(s.Warnings, r.Warnings...)
		s.Rows = append(s.Rows, [2]string{"advice", fmt.Sprintf("For a %s budget (%s): %s.", pacer.FormatSize(r.Budget), tu.BudgetSource, r.Gain)})
	} else {
		s.Rows = append(s.Rows, [2]string{"budget", "none known: --budget SIZE (or a bundle's cgroup limit) gives a recommended GOGC and GOMEMLIMIT"})
	}
	return s, nil
}
