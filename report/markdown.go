package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
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
	m := &mdWriter{w: w}
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
	m.segments(d)
	m.heap(d)
	m.trace(d)
	for _, build := range []func(*diagnose.Diagnosis, HTMLOptions) (*htmlSection, error){crossHTML, lintHTML, tuningHTML} {
		if sec, _ := build(d, HTMLOptions{}); sec != nil {
			m.section(sec)
		}
	}
	if len(d.Notes) > 0 {
		m.printf("### Notes\n\n")
		for _, n := range d.Notes {
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
	s := fmt.Sprintf("Exit status %d after %s s", r.ExitCode, fmtNum(r.WallS))
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

func (m *mdWriter) segments(d *diagnose.Diagnosis) {
	segs := d.Log.Segments
	for _, in := range d.Log.Inputs {
		if in.NErrors > 0 && (d.Run == nil || in.NErrors != 1 || !in.Partial) {
			m.printf("%s\n\n", mdEscape(fmt.Sprintf("%s unparsable in %s, the first at %v.", plural(in.NErrors, "gc line"), in.Name, in.Errors[0])))
		}
	}
	switch {
	case len(segs) == 1:
		s := segs[0]
		m.printf("### GC at a glance\n\n%s\n\n", mdEscape(fmt.Sprintf("%s, gc %d–%d, %s format.", linesWord(s), s.Summary.FirstGC, s.Summary.LastGC, s.Format)))
		var rows [][]string
		for _, r := range glanceRows(s, inlineCaveat) {
			rows = append(rows, []string{r[0], mdEscape(r[1])})
		}
		m.table([]string{"figure", "value"}, rows)
		for _, w := range s.Warnings {
			m.printf("> %s\n", mdLine(mdProse(w, false)))
		}
		if len(s.Warnings) > 0 {
			m.printf("\n")
		}
	case len(segs) > 1:
		m.printf("### Processes (%d)\n\n", len(segs))
		var rows [][]string
		shown := costliest(segs)
		shown = shown[:min(len(shown), 8)]
		for _, s := range shown {
			label := strings.TrimPrefix(s.Label, "# ")
			if label == "" {
				label = s.Process
			}
			cpu := "n/a"
			if gctrace.Valid(s.Summary.GCCPUPercent) {
				cpu = fmtNum(s.Summary.GCCPUPercent) + " %"
			}
			rows = append(rows, []string{fmt.Sprint(s.Index), mdEscape(lineSpan(s)), mdEscape(label), fmt.Sprint(s.Summary.Cycles),
				cpu, fmtNum(s.Summary.MaxPauseMS) + " ms", fmt.Sprintf("%d MB", s.Summary.PeakHeapMB)})
		}
		m.table([]string{"#", "lines", "label", "cycles", "GC CPU", "max STW", "peak heap"}, rows)
		if n := len(segs) - len(shown); n > 0 {
			m.printf("(%s with less GC CPU time not listed.)\n\n", countOf(n, "more process", "more processes"))
		}
	}
}

// costliest returns the segments with the most GC CPU time first.
func costliest(segs []*gctrace.Segment) []*gctrace.Segment {
	out := append([]*gctrace.Segment(nil), segs...)
	sortSegments(out)
	return out
}

func (m *mdWriter) heap(d *diagnose.Diagnosis) {
	h := d.Heap
	if h == nil || h.Profile == nil || h.Top == nil {
		return
	}
	p := h.Profile
	m.printf("### Allocation sites\n\n%s\n\n", mdLine(mdEscape(fmt.Sprintf("%s: %s allocated in %s objects; %s.", h.Name, fmtBytes(p.TotalAllocBytes), countStr(p.TotalAllocObjects), topHeader(h.Top)))))
	var rows [][]string
	for _, s := range d.HeapSites() {
		why := []string{}
		if s.Via != "" {
			why = append(why, "via "+mdEscape(s.Via))
		}
		if r := s.EscapeReason(); r != "" {
			why = append(why, mdProse(r, true))
		}
		rows = append(rows, []string{fmt.Sprint(s.Rank), fmtBytes(s.AllocBytes), fmt.Sprintf("%.1f %%", s.Share*100),
			fmtBytes(int64(s.AvgSize)), fmt.Sprintf("%.0f %%", s.ShortLived()*100),
			mdEscape(fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)), mdEscape(s.Function), strings.Join(why, "; ")})
	}
	m.table([]string{"#", "allocated", "share", "avg size", "short-lived", "site", "function", "why"}, rows)
	if h.Escape == nil {
		m.printf("No escape analysis: `--source PACKAGES` shows why each site is on the heap.\n\n")
	}
}

func (m *mdWriter) trace(d *diagnose.Diagnosis) {
	if d.Trace == nil || d.Trace.Result == nil {
		return
	}
	r := d.Trace.Result
	m.printf("### Execution trace\n\n%s\n\n", mdLine(mdEscape(fmt.Sprintf("%s: %s ms, %s, %d P.", d.Trace.Name, fmtNum(traceDurationMS(r)), r.GoVersion, r.Procs.GOMAXPROCS))))
	if r.Partial {
		m.printf("**Partial:** the trace is cut short; the figures cover what could be read.\n\n")
	}
	var rows [][]string
	for _, row := range traceRows(r) {
		rows = append(rows, []string{row[0], mdEscape(row[1])})
	}
	m.table([]string{"figure", "value"}, rows)
	groups := userGroups(r)
	if len(groups) == 0 {
		return
	}
	n := min(len(groups), 10)
	rows = nil
	for _, g := range groups[:n] {
		rows = append(rows, []string{fmt.Sprint(g.Count), fmtNum(g.RunningMS), fmtNum(g.RunnableMS), fmtNum(g.SyscallMS),
			fmtNum(g.Blocked.TotalMS()), fmtNum(g.AssistMS), mdEscape(g.Name)})
	}
	m.printf("Goroutine groups, the busiest first (times in ms):\n\n")
	m.table([]string{"count", "running", "runnable", "syscall", "blocked", "assist", "start function"}, rows)
	if n < len(groups) {
		m.printf("%s\n\n", mdEscape(fmt.Sprintf("(%d more groups; --format json lists them all)", len(groups)-n)))
	}
}

// section writes a page section that is text and tables only (the
// cross-checks, the source checks, the tuning), escaping every cell.
func (m *mdWriter) section(s *htmlSection) {
	m.printf("### %s\n\n", mdEscape(s.Title))
	if s.Intro != "" {
		m.printf("%s\n\n", mdLine(mdEscape(s.Intro)))
	}
	for _, w := range s.Warnings {
		m.printf("> %s\n\n", mdLine(mdEscape(w)))
	}
	for _, r := range s.Rows {
		m.printf("**%s:** %s  \n", mdEscape(r[0]), mdLine(mdEscape(r[1])))
	}
	if len(s.Rows) > 0 {
		m.printf("\n")
	}
	if t := s.Table; t != nil {
		var head []string
		for _, h := range t.Head {
			head = append(head, mdEscape(h))
		}
		var rows [][]string
		for _, r := range t.Rows {
			var cells []string
			for _, c := range r {
				cells = append(cells, mdLine(mdEscape(c)))
			}
			rows = append(rows, cells)
		}
		m.table(head, rows)
	}
	for _, x := range s.Missing {
		m.printf("%s\n\n", mdLine(mdEscape(x)))
	}
}
