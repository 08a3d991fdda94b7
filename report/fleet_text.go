package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/internal/terminal"
)

// FleetText writes the fleet report for people: the fleet's GC CPU, the
// jobs and the costliest instances ranked, what tuning would save, what
// the metrics lacked, the drill-down, then the findings of the instances
// shown with their evidence and its PromQL. Label values and the server's
// messages are escaped like any evidence (see newTextWriter).
func FleetText(w io.Writer, f *Fleet, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	t := newTextWriter(w, opt)
	t.printf("%s\n", t.style(ansiBold, "gcdoctor fleet: "+fleetHeadline(f.Report)))
	for _, s := range fleetSections(f, false) {
		t.section(s)
	}
	t.fleetFindings(f)
	return t.err
}

// fleetFindings prints the findings of the instances shown, each figure
// with the PromQL that gives it on a line of its own.
func (t *textWriter) fleetFindings(f *Fleet) {
	fs := fleetFindings(f)
	other := otherFindings(f)
	if len(fs) == 0 {
		t.printf("\n")
		t.wrap("", "", "No findings on the instances shown: nothing in their metrics crosses a rule's threshold.")
		if other != "" {
			t.wrap("", "", other)
		}
		return
	}
	t.printf("\n%s\n", t.style(ansiBold, fmt.Sprintf("Findings on the instances shown (%d)", len(fs))))
	for _, fd := range fs {
		sev := fd.Severity.String()
		switch fd.Severity {
		case diagnose.Critical:
			sev = t.style(ansiRed+ansiBold, sev)
		case diagnose.Warning:
			sev = t.style(ansiYellow, sev)
		default:
			sev = t.style(ansiCyan, sev)
		}
		t.printf("\n  %s  %s  %s\n", sev, t.style(ansiBold, fd.ID), fd.Title)
		t.wrap("    ", "    ", fd.Message)
		for _, e := range fd.Evidence {
			val := fmtNum(e.Value)
			if isCount(e.Unit) && e.Value == math.Trunc(e.Value) {
				val = strconv.FormatFloat(e.Value, 'f', 0, 64)
			}
			if e.Unit != "" && e.Unit != "count" {
				val += " " + e.Unit
			}
			t.wrap("      "+e.Label+": ", "        ", val)
			t.wrap("        ", "        ", t.style(ansiDim, e.Source))
		}
		for _, c := range fd.Caveats {
			t.wrap("      caveat: ", "        ", c)
		}
		t.wrap("    Fix:    ", "            ", fd.Remedy)
		t.wrap("    Verify: ", "            ", fd.Verify)
	}
	if other != "" {
		t.printf("\n")
		t.wrap("  ", "  ", other)
	}
	t.printf("\n  %s\n", t.style(ansiDim, "gcdoctor explain ID tells more about a rule."))
}

// FleetMarkdown writes the fleet report as GitHub-flavoured Markdown,
// every label value and message escaped as in Markdown.
func FleetMarkdown(w io.Writer, f *Fleet, toolVersion string) error {
	m := &mdWriter{w: &terminal.Writer{W: w}}
	m.printf("## gcdoctor fleet: %s\n\n", mdEscape(fleetHeadline(f.Report)))
	for _, s := range fleetSections(f, true) {
		m.section(s)
	}
	fs := fleetFindings(f)
	m.printf("### Findings on the instances shown (%d)\n\n", len(fs))
	for _, fd := range fs {
		m.printf("#### %s `%s` %s\n\n%s\n\n", fd.Severity, fd.ID, mdEscape(fd.Title), mdLine(mdEscape(fd.Message)))
		var rows [][]string
		for _, e := range fd.Evidence {
			rows = append(rows, []string{mdEscape(e.Label), mdEscape(strings.TrimSpace(fmtNum(e.Value) + " " + e.Unit)), "`" + strings.ReplaceAll(oneLine(e.Source), "`", "'") + "`"})
		}
		if len(rows) > 0 {
			m.table([]string{"evidence", "value", "PromQL"}, rows)
		}
		for _, c := range fd.Caveats {
			m.printf("> %s\n\n", mdLine(mdEscape(c)))
		}
		m.printf("**Fix.** %s\n\n**Verify.** %s\n\n", mdLine(mdEscape(fd.Remedy)), mdLine(mdEscape(fd.Verify)))
	}
	if o := otherFindings(f); o != "" {
		m.printf("%s\n\n", mdEscape(o))
	}
	m.printf("---\n_gcdoctor%s · `gcdoctor explain ID` tells more about a rule._\n", mdEscape(versionSuffix(toolVersion)))
	return m.err
}

func versionSuffix(v string) string {
	if v == "" {
		return ""
	}
	return " " + v
}
