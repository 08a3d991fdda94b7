package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/terminal"
)

// mdWriter writes Markdown, remembering the first error.
type mdWriter struct {
	w   io.Writer
	err error
}

func (m *mdWriter) printf(format string, args ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, args...)
	}
}

// table writes a GFM table; cells must already be escaped for a table.
func (m *mdWriter) table(head []string, rows [][]string) {
	m.printf("| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, r := range rows {
		m.printf("| %s |\n", strings.Join(r, " | "))
	}
	m.printf("\n")
}

// Markdown writes the diagnosis as GitHub-flavoured Markdown to paste into
// an issue: the verdict, what to do first, each finding with its evidence,
// then the figures of each kind of evidence. Every string that comes from
// the evidence (file and function names, log lines, messages) is escaped,
// so it shows as written and cannot add markup, HTML or table cells.
func Markdown(w io.Writer, d *diagnose.Diagnosis, toolVersion string) error {
	// Control characters from the evidence are written visibly: a report
	// pasted into a terminal, or shown as Markdown, cannot act on either.
	m := &mdWriter{w: &terminal.Writer{W: w}}
	m.printf("## gcdoctor: %s\n\n", mdEscape(verdict(d)))
	if len(d.Findings) > 0 {
		m.printf("%s. ", severityCounts(d))
	}
	if ev := evidenceNames(d); len(ev) > 0 {
		var parts []string
		for _, e := range ev {
			parts = append(parts, mdEscape(e))
		}
		m.printf("From %s.", strings.Join(parts, "; "))
	}
	m.printf("\n\n")
	m.runInfo(d)
	if d.FirstActions {
		m.actions(d)
	}
	m.findings(d)
	for _, sec := range build(d, nil) {
		if !sec.empty() {
			m.section(sec)
		}
	}
	if len(d.Caveats) > 0 {
		m.printf("### Notes\n\n")
		for _, n := range d.Caveats {
			m.printf("- %s\n", mdLine(mdProse(n, false)))
		}
		m.printf("\n")
	}
	v := "gcdoctor"
	if toolVersion != "" {
		v += " " + toolVersion
	}
	m.printf("<sub>%s · `gcdoctor explain ID` tells more about a rule.</sub>\n", mdEscape(v))
	return m.err
}

func (m *mdWriter) runInfo(d *diagnose.Diagnosis) {
	r := d.Run
	if r == nil {
		return
	}
	s := fmt.Sprintf("Exit status %s after %s s", r.Exit(), fmtNum(r.WallS))
	if r.PeakRSS > 0 {
		s += ", peak RSS " + fmtBytes(r.PeakRSS)
	}
	m.printf("%s; %s.\n\n", mdEscape(s), mdEscape(strings.Join(runEnv(r), ", ")))
}

func (m *mdWriter) actions(d *diagnose.Diagnosis) {
	acts := d.Actions(5)
	if len(acts) == 0 {
		return
	}
	m.printf("### What to do first\n\n")
	for i, f := range acts {
		where := ""
		if len(f.Where) > 0 {
			where = " (" + mdEscape(f.Where[0].String()) + ")"
		}
		m.printf("%d. **%s**%s", i+1, mdEscape(f.Title), where)
		if f.Remedy != "" {
			m.printf(": %s", mdProse(firstSentence(f.Remedy), false))
		}
		if f.Verify != "" {
			m.printf("  \n   Verify: %s", mdProse(f.Verify, false))
		}
		if f.Command != "" {
			m.printf("  \n   Check: %s", mdCode(f.Command, false))
		}
		m.printf("\n")
	}
	m.printf("\n")
}

func (m *mdWriter) findings(d *diagnose.Diagnosis) {
	if len(d.Findings) == 0 {
		m.printf("No findings: nothing in this evidence crosses a rule's threshold.\n\n")
		return
	}
	m.printf("### Findings (%d)\n\n", len(d.Findings))
	for _, f := range d.Findings {
		m.printf("#### %s %s: %s\n\n", f.Severity, mdCode(f.ID, false), mdEscape(f.Title))
		msg := mdProse(f.Message, false)
		if f.Also > 0 {
			msg += fmt.Sprintf(" (Also in %s.)", countOf(f.Also, "other process", "other processes"))
		}
		m.printf("%s\n\n", mdLine(msg))
		if len(f.Evidence) > 0 {
			var rows [][]string
			for _, e := range f.Evidence {
				rows = append(rows, []string{mdEscape(e.Label), mdEscape(evidenceValue(e)), mdEscape(e.Source)})
			}
			m.table([]string{"evidence", "value", "source"}, rows)
		}
		var lines []string
		if len(f.Where) > 0 {
			var where []string
			for _, l := range f.Where {
				where = append(where, mdEscape(l.String()))
			}
			lines = append(lines, "**Where:** "+strings.Join(where, ", "))
		}
		if f.Remedy != "" {
			lines = append(lines, "**Fix:** "+mdProse(f.Remedy, false))
		}
		if f.Verify != "" {
			lines = append(lines, "**Verify:** "+mdProse(f.Verify, false))
		}
		if len(lines) > 0 {
			// Two trailing spaces break the line inside one paragraph.
			m.printf("%s\n\n", strings.Join(lines, "  \n"))
		}
		for _, c := range f.Caveats {
			m.printf("> Caveat: %s\n", mdProse(c, false))
		}
		if len(f.Caveats) > 0 {
			m.printf("\n")
		}
	}
}

// costliest returns the segments with the most GC CPU time first.
func costliest(segs []*gctrace.Segment) []*gctrace.Segment {
	out := append([]*gctrace.Segment(nil), segs...)
	sortSegments(out)
	return out
}

// section writes one kind of evidence's section, escaping every string
// from the evidence: its figures as a table, its tables, its caveats.
func (m *mdWriter) section(s *Section) {
	m.printf("### %s\n\n", mdEscape(s.Title))
	intro := s.Intro
	if s.Source != "" {
		intro = s.Source + ": " + intro
	}
	if intro != "" {
		m.printf("%s\n\n", mdLine(mdEscape(sentence(strings.TrimSuffix(intro, ": ")))))
	}
	if s.Alert != "" {
		m.printf("**%s**\n\n", mdLine(mdEscape(s.Alert)))
	}
	if len(s.Rows) > 0 {
		var rows [][]string
		for _, r := range s.Rows {
			rows = append(rows, []string{mdEscape(r.Label), mdProse(r.Value, true)})
		}
		m.table([]string{"figure", "value"}, rows)
	}
	for _, t := range s.Tables {
		if t.Caption != "" {
			m.printf("%s\n\n", mdLine(mdEscape(t.Caption)))
		}
		var head []string
		for _, c := range t.Columns {
			head = append(head, mdEscape(c.Head))
		}
		var rows [][]string
		for _, r := range t.Rows {
			var cells []string
			for i := range t.Columns {
				c := ""
				if i < len(r.Cells) {
					c = mdEscape(r.Cells[i])
				}
				cells = append(cells, c)
			}
			if len(r.Notes) > 0 && len(cells) > 0 {
				var notes []string
				for _, n := range r.Notes {
					notes = append(notes, mdProse(n, true))
				}
				cells[len(cells)-1] += " — " + strings.Join(notes, "; ")
			}
			rows = append(rows, cells)
		}
		m.table(head, rows)
		for _, f := range t.Footer {
			m.printf("%s\n\n", mdLine(mdEscape(f)))
		}
	}
	for _, c := range s.Caveats {
		m.printf("> %s\n\n", mdLine(mdProse(c, false)))
	}
}
