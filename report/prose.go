package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/gctrace"
)

// span is a piece of prose: plain text, or code that the rules quote
// between backticks (a command, a source line).
type span struct {
	Text string
	Code bool
}

// spans splits prose at backticks into text and code. Prose with an odd
// number of backticks (a function name or a source line that holds one)
// cannot be split reliably and stays one plain span: the renderers escape
// it whole, so a stray backtick shows as itself and never opens code.
func spans(s string) []span {
	s = oneLine(s)
	if strings.Count(s, "`")%2 != 0 {
		return []span{{Text: s}}
	}
	var out []span
	for i, p := range strings.Split(s, "`") {
		if p == "" {
			continue
		}
		out = append(out, span{Text: p, Code: i%2 == 1})
	}
	return out
}

// oneLine folds line breaks and tabs into spaces: evidence such as a log
// line or a source line could otherwise end a Markdown table row or start a
// block of its own.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', '\t', '\v', '\f', '\u2028', '\u2029':
			return ' '
		}
		return r
	}, s)
}

// mdEscape makes untrusted text inert inside a line of GitHub-flavoured
// Markdown: it backslash-escapes the characters that start emphasis,
// links, code, strikethrough and table cells, and turns the HTML
// metacharacters into entities. Text that starts a line needs mdLine too.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdLine makes rendered Markdown safe at the start of a line, where
// "# ", "- ", "+ ", "1. ", "=" or four spaces would start a block of its own.
func mdLine(s string) string {
	s = strings.TrimLeft(s, " ")
	if s == "" {
		return s
	}
	switch s[0] {
	case '#', '+', '-', '=':
		return "\\" + s
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') && (i+1 == len(s) || s[i+1] == ' ') {
		return s[:i] + "\\" + s[i:]
	}
	return s
}

// mdCode writes s as a Markdown code span. Inside a code span nothing is
// parsed, so only the fence and, in a table, the cell separator need care:
// the fence is one backtick longer than the longest run in s, and GFM
// tables take \| as a pipe even inside code.
func mdCode(s string, table bool) string {
	s = oneLine(s)
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if table {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || (strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ")) {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdProse renders prose that may quote code between backticks, escaping
// everything else.
func mdProse(s string, table bool) string {
	var b strings.Builder
	for _, sp := range spans(s) {
		if sp.Code {
			b.WriteString(mdCode(sp.Text, table))
		} else {
			b.WriteString(mdEscape(sp.Text))
		}
	}
	return b.String()
}

// verdict is the one-line answer a report leads with: the most urgent
// finding's severity and title, and how many more there are.
func verdict(d *diagnose.Diagnosis) string {
	if len(d.Findings) == 0 {
		return "no GC problem found in this evidence"
	}
	f := d.Findings[0]
	v := f.Title + " (" + f.Severity.String()
	if n := len(d.Findings) - 1; n > 0 {
		v += fmt.Sprintf("; %s", plural(n, "more finding"))
	}
	return v + ")"
}

// severityCounts says how many findings there are of each severity, most
// severe first: "1 critical, 2 warnings".
func severityCounts(d *diagnose.Diagnosis) string {
	var parts []string
	for _, sev := range []diagnose.Severity{diagnose.Critical, diagnose.Warning, diagnose.Info} {
		n := 0
		for _, f := range d.Findings {
			if f.Severity == sev {
				n++
			}
		}
		switch {
		case n == 0:
		case sev == diagnose.Warning:
			parts = append(parts, plural(n, "warning"))
		default:
			parts = append(parts, fmt.Sprintf("%d %s", n, sev))
		}
	}
	return strings.Join(parts, ", ")
}

// evidenceValue formats a figure with its unit as the text report does:
// counts as integers, everything else with the precision gctrace supports.
func evidenceValue(e diagnose.Evidence) string {
	val := fmtNum(e.Value)
	if isCount(e.Unit) && e.Value == math.Trunc(e.Value) {
		val = strconv.FormatFloat(e.Value, 'f', 0, 64)
		if e.Value >= 1e5 {
			val = countStr(int64(e.Value))
		}
	}
	if e.Unit != "" && val != "n/a" {
		val += " " + e.Unit
	}
	return val
}

// evidenceNames lists the kinds of evidence the diagnosis was made from,
// for a report's opening line.
func evidenceNames(d *diagnose.Diagnosis) []string {
	var out []string
	if len(d.Log.Inputs) > 0 {
		var names []string
		for _, in := range d.Log.Inputs {
			names = append(names, in.Name)
		}
		procs := countOf(len(d.Log.Segments), "process", "processes")
		out = append(out, fmt.Sprintf("gctrace %s (%s, %s)", strings.Join(names, ", "), plural(d.Log.Cycles(), "GC cycle"), procs))
	}
	if d.Heap != nil && d.Heap.Profile != nil {
		out = append(out, "heap profile "+d.Heap.Name)
	}
	if d.Trace != nil && d.Trace.Result != nil {
		out = append(out, "execution trace "+d.Trace.Name)
	}
	if d.Run != nil && len(d.Run.Command) > 0 {
		out = append(out, "the run of "+strings.Join(d.Run.Command, " "))
	}
	return out
}

// glanceRows are the headline figures of one process ("GC at a glance"),
// as label and value pairs. caveat turns a caveat on a figure into what
// follows the figure: a footnote marker in the text report, the caveat
// itself in parentheses elsewhere.
func glanceRows(s *gctrace.Segment, caveat func(string) string) [][2]string {
	sm := &s.Summary
	var rows [][2]string
	row := func(label, value string) { rows = append(rows, [2]string{label, value}) }
	cpu := "n/a"
	if gctrace.Valid(sm.GCCPUPercent) {
		cpu = fmtNum(sm.GCCPUPercent) + " % of " + strconv.Itoa(sm.Procs) + " P"
		if sm.RuntimeCPUPercent >= 0 {
			cpu += fmt.Sprintf(" (the runtime says %d %% since start)", sm.RuntimeCPUPercent)
		}
	} else if sm.RuntimeCPUPercent >= 0 {
		cpu = fmt.Sprintf("%d %% since start (runtime's figure)", sm.RuntimeCPUPercent)
	}
	row("GC CPU", cpu)
	pauses := fmt.Sprintf("p50 %s, p95 %s, p99 %s, max %s ms (line %d)",
		fmtNum(sm.P50PauseMS), fmtNum(sm.P95PauseMS), fmtNum(sm.P99PauseMS), fmtNum(sm.MaxPauseMS), sm.MaxPauseLine)
	if sm.PausesApprox {
		pauses += caveat("pause percentiles are estimated within 1% (more than 4096 pauses)")
	}
	row("STW pauses", pauses)
	cycles := fmt.Sprintf("%d", sm.Cycles)
	if gctrace.Valid(sm.GCPerSecond) {
		cycles = fmt.Sprintf("%s /s over %s s (%s", fmtNum(sm.GCPerSecond), fmtNum(sm.WallS), plural(sm.Cycles, "cycle"))
		if sm.Forced > 0 {
			cycles += fmt.Sprintf(", %d forced", sm.Forced)
		}
		cycles += ")"
	}
	row("Cycles", cycles)
	if sm.LiveFirstMB >= 0 {
		row("Live heap", fmt.Sprintf("%d → %d MB (min %d, max %d)", sm.LiveFirstMB, sm.LiveLastMB, sm.LiveMinMB, sm.LiveMaxMB))
	}
	heap := fmt.Sprintf("peak %d MB (line %d)", sm.PeakHeapMB, sm.PeakHeapLine)
	if sm.MaxGoalMB >= 0 {
		heap += fmt.Sprintf(", goal %d–%d MB", sm.MinGoalMB, sm.MaxGoalMB)
	}
	if sm.MaxStacksMB >= 0 {
		heap += fmt.Sprintf(", stacks %d MB", sm.MaxStacksMB)
	}
	row("Heap", heap)
	if gctrace.Valid(sm.AllocMBPerS) {
		row("Allocation", fmtNum(sm.AllocMBPerS)+" MB/s")
	}
	if gctrace.Valid(sm.MarkWallPct) {
		mark := fmtNum(sm.MarkWallPct) + " % of wall time"
		if gctrace.Valid(sm.AssistPercent) {
			mark += ", assists " + fmtNum(sm.AssistPercent) + " % of mark CPU"
		}
		row("Marking", mark)
	}
	return rows
}

// traceRows are the headline figures of an execution trace, as the text
// report shows them.
func traceRows(r *exectrace.Result) [][2]string {
	g := &r.GC
	rows := [][2]string{
		{"GC", fmt.Sprintf("%s, marking %s ms of wall time, GC CPU %s %% (%s %% with idle workers)", plural(g.Cycles, "cycle"), fmtNum(g.MarkWallMS), fmtNum(g.CPU.Fraction*100), fmtNum(g.CPU.FractionWithIdle*100))},
		{"STW", fmt.Sprintf("%s, p50 %s, p99 %s, max %s ms, %s ms in all", plural(g.STW.Count, "stop"), fmtNum(g.STW.P50MS), fmtNum(g.STW.P99MS), fmtNum(g.STW.MaxMS), fmtNum(g.STW.TotalMS))},
	}
	var mmu []string
	for _, w := range []float64{1, 10, 100, 1000} {
		for _, p := range r.MMU.Points {
			if p.WindowMS == w {
				mmu = append(mmu, fmt.Sprintf("%g ms %s %%", w, fmtNum(p.Bounded*100)))
			}
		}
	}
	if len(mmu) > 0 {
		rows = append(rows, [2]string{"MMU", strings.Join(mmu, ", ")})
	}
	rows = append(rows, [2]string{"Goroutines", fmt.Sprintf("%d seen, %s created/s, up to %d alive", r.Goroutines.Seen, fmtNum(r.Goroutines.CreatedPerSec), r.Goroutines.PeakLive)})
	return rows
}

// sortSegments orders processes by GC CPU time, the costliest first.
func sortSegments(segs []*gctrace.Segment) {
	slices.SortStableFunc(segs, func(a, b *gctrace.Segment) int {
		return cmp.Compare(b.Summary.GCCPUMS, a.Summary.GCCPUMS)
	})
}

// inlineCaveat puts a caveat right after its figure, in parentheses.
func inlineCaveat(c string) string { return " (" + c + ")" }
