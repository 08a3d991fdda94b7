package report

import (
	"strconv"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

// crossSection shows what the gctrace and the execution trace agree on;
// nil without both.
func crossSection(d *diagnose.Diagnosis) *Section {
	if len(d.CrossChecks) == 0 {
		return nil
	}
	sec := &Section{ID: "cross", Title: "Cross-checks", Intro: "Figures the gctrace and the execution trace both give"}
	t := &Table{Columns: []Column{{Head: "figure"}, {Head: "verdict"}, {Head: "gctrace", Num: true}, {Head: "trace", Num: true}}}
	// The compared figures are counts.
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, c := range d.CrossChecks {
		row := TableRow{Cells: []string{c.What, "agree", "", num(c.TraceValue) + " " + c.Unit}}
		g := num(c.GCTraceLo)
		if c.GCTraceHi != c.GCTraceLo {
			g += "–" + num(c.GCTraceHi)
		}
		row.Cells[2] = g + " " + c.Unit
		if !c.Agree {
			row.Cells[1] = "DISAGREE"
			row.Notes = append(row.Notes, c.Note)
		}
		t.Rows = append(t.Rows, row)
	}
	sec.Tables = append(sec.Tables, t)
	sec.JSON = []Field{{"cross_checks", crossJSON(d)}}
	return sec
}

// jsonCross is one cross-check of the gctrace against the trace.
type jsonCross struct {
	What    string `json:"what"`
	GCTrace string `json:"gctrace"`
	Trace   string `json:"trace"`
	Agree   bool   `json:"agree"`
	Note    string `json:"note"`
}

func crossJSON(d *diagnose.Diagnosis) []jsonCross {
	var out []jsonCross
	for _, c := range d.CrossChecks {
		out = append(out, jsonCross{What: c.What, GCTrace: c.GCTrace, Trace: c.Trace, Agree: c.Agree, Note: c.Note})
	}
	return out
}
