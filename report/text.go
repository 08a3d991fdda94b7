package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/internal/terminal"
)

// TextOptions tune Text.
type TextOptions struct {
	Color bool // ANSI colours (the caller decides: terminal, NO_COLOR)
	Width int  // wrap width, default 80
	// Sections shows only the sections with these IDs (all when empty),
	// and HideFindings leaves the findings out: a command that answers one
	// question (whatif) shows that answer.
	Sections     []string
	HideFindings bool
}

type textWriter struct {
	w      io.Writer
	single string // the only input's name, stripped from sources
	opt    TextOptions
	err    error
	notes  []string // footnotes, numbered in order of appearance
}

// newTextWriter returns a textWriter on w that escapes, visibly, every
// character of the evidence that could act on a terminal (see
// internal/terminal); only the report's own colours get through.
func newTextWriter(w io.Writer, opt TextOptions) *textWriter {
	return &textWriter{w: &terminal.Writer{W: w, Styles: opt.Color}, opt: opt}
}

func (t *textWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

func (t *textWriter) style(code, s string) string {
	if !t.opt.Color {
		return s
	}
	return code + s + ansiReset
}

// footnote registers a caveat and returns its marker.
func (t *textWriter) footnote(s string) string {
	i := slices.Index(t.notes, s)
	if i < 0 {
		t.notes = append(t.notes, s)
		i = len(t.notes) - 1
	}
	return superscript(i + 1)
}

func superscript(n int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	var b strings.Builder
	for _, c := range strconv.Itoa(n) {
		r := []rune(digits)[c-'0']
		b.WriteRune(r)
	}
	return b.String()
}

// Text writes the diagnosis for people: a headline, each kind of evidence's
// section, the findings, most urgent first, then the caveats as numbered
// notes. It fits opt.Width columns.
func Text(w io.Writer, d *diagnose.Diagnosis, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	t := newTextWriter(w, opt)
	if len(d.Log.Inputs) == 1 {
		t.single = d.Log.Inputs[0].Name
	}
	if len(d.Log.Inputs) > 0 {
		t.header(d)
	}
	for _, s := range build(d, opt.Sections) {
		if !s.empty() {
			t.section(s)
		}
	}
	if !opt.HideFindings {
		t.findings(d)
	}
	if d.FirstActions {
		t.actions(d)
	}
	for _, n := range d.Caveats {
		t.footnote(n)
	}
	if len(t.notes) > 0 {
		t.printf("\n%s\n", t.style(ansiBold, "Notes"))
		for i, n := range t.notes {
			t.wrap("  "+superscript(i+1)+" ", "    ", n)
		}
	}
	return t.err
}

func (t *textWriter) header(d *diagnose.Diagnosis) {
	var names []string
	lines := 0
	for _, in := range d.Log.Inputs {
		names = append(names, in.Name)
		lines += in.Lines
	}
	what := strings.Join(names, ", ")
	if d.Run != nil && len(d.Run.Command) > 0 {
		what = strings.Join(d.Run.Command, " ")
	}
	t.printf("%s %s\n", t.style(ansiBold, "gcdoctor:"), truncateLeft(what, t.opt.Width-10))
	t.printf("  %s, %s, %s read", countOf(len(d.Log.Segments), "process", "processes"), plural(d.Log.Cycles(), "GC cycle"), plural(lines, "line"))
	if d.Log.Partial() && d.Run == nil {
		t.printf(" %s", t.style(ansiYellow, "(PARTIAL: input cut inside a gc line)"))
	}
	t.printf("\n")
	if r := d.Run; r != nil {
		t.printf("  exit status %s after %s s", r.Exit(), fmtNum(r.WallS))
		if r.PeakRSS > 0 {
			t.printf(", peak RSS %s", fmtBytes(r.PeakRSS))
		}
		t.printf("\n")
		t.wrap("  ", "  ", strings.Join(runEnv(r), ", "))
	}
}

// section prints one kind of evidence: its title and what it is about,
// its figures, its tables and its caveats.
func (t *textWriter) section(s *Section) {
	title := s.Title
	intro := s.Intro
	if s.Source != "" {
		rest := ""
		if intro != "" {
			rest = ", " + intro
		}
		room := t.opt.Width - runeLen(title) - 2 - runeLen(rest)
		if runeLen(s.Source) > room {
			// The intro wraps onto lines of its own below the title, so
			// the source may take one of them whole: cut only what would
			// not fit there.
			room = max(t.opt.Width-4, 24)
		}
		intro = truncateLeft(s.Source, room) + rest
	}
	t.printf("\n%s", t.style(ansiBold, title))
	switch {
	case intro == "":
		t.printf("\n")
	case runeLen(title)+2+runeLen(intro) <= t.opt.Width:
		t.printf("  %s\n", t.style(ansiDim, intro))
	default:
		t.printf("\n")
		t.wrap("  ", "  ", t.style(ansiDim, intro))
	}
	if s.Alert != "" {
		t.wrap("  ", "  ", t.style(ansiYellow, s.Alert))
	}
	lw := 0
	for _, r := range s.Rows {
		lw = max(lw, runeLen(r.Label))
	}
	lw = min(max(lw, 13), 22)
	for _, r := range s.Rows {
		t.wrap(fmt.Sprintf("  %s ", padRight(truncate(r.Label, lw), lw)), strings.Repeat(" ", lw+3), r.Value)
	}
	for i, tb := range s.Tables {
		if i > 0 || len(s.Rows) > 0 {
			t.printf("\n")
		}
		t.table(tb)
	}
	for _, c := range s.Caveats {
		t.wrap("  (", "   ", c+")")
	}
}

// colGap separates the columns of a table.
const colGap = "  "

// table prints a table in fixed columns: figures right-aligned, the flex
// column given the width the others leave, cut or wrapped to fit.
func (t *textWriter) table(tb *Table) {
	if tb.Caption != "" {
		t.wrap("  ", "  ", t.style(ansiDim, tb.Caption))
	}
	n := len(tb.Columns)
	widths := make([]int, n)
	flex := -1
	for i, c := range tb.Columns {
		widths[i] = runeLen(c.Head)
		if c.Flex {
			flex = i
		}
	}
	rows := make([][]string, len(tb.Rows))
	for j, r := range tb.Rows {
		rows[j] = append([]string(nil), r.Cells...)
		for i := range min(n, len(r.Cells)) {
			if tb.Columns[i].Func {
				rows[j][i] = shortFunc(r.Cells[i])
			}
			widths[i] = max(widths[i], runeLen(rows[j][i]))
		}
	}
	if flex >= 0 {
		used := 2 + len(colGap)*(n-1)
		for i, w := range widths {
			if i != flex {
				used += w
			}
		}
		widths[flex] = min(widths[flex], max(t.opt.Width-used, 12))
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("  ")
		var wrapped []string
		indent := 2
		for i := range n {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			col := tb.Columns[i]
			if i == flex && runeLen(c) > widths[i] {
				if col.Wrap {
					ls := lines(c, widths[i])
					c, wrapped = ls[0], ls[1:]
				} else {
					c = truncate(c, widths[i])
				}
			}
			if i > 0 {
				b.WriteString(colGap)
			}
			if i == flex {
				indent = runeLen(b.String())
			}
			switch {
			case col.Num:
				b.WriteString(padLeft(c, widths[i]))
			case i < n-1:
				b.WriteString(padRight(c, widths[i]))
			default:
				b.WriteString(c)
			}
		}
		t.printf("%s\n", strings.TrimRight(b.String(), " "))
		for _, w := range wrapped {
			t.printf("%s%s\n", strings.Repeat(" ", indent), w)
		}
	}
	var heads []string
	for _, c := range tb.Columns {
		heads = append(heads, c.Head)
	}
	line(heads)
	for j, r := range tb.Rows {
		line(rows[j])
		for _, note := range r.Notes {
			t.wrap("      ", "        ", t.style(ansiDim, note))
		}
	}
	for _, f := range tb.Footer {
		t.wrap("  ", "  ", t.style(ansiDim, f))
	}
}

// lines breaks text into lines of at most width runes, at spaces where it
// can.
func lines(text string, width int) []string {
	var out []string
	cur := ""
	for _, w := range words(text) {
		for runeLen(w) > width {
			if cur != "" {
				out = append(out, cur)
				cur = ""
			}
			r := []rune(w)
			out = append(out, string(r[:width]))
			w = string(r[width:])
		}
		switch {
		case cur == "":
			cur = w
		case runeLen(cur)+1+runeLen(w) <= width:
			cur += " " + w
		default:
			out = append(out, cur)
			cur = w
		}
	}
	if cur != "" || len(out) == 0 {
		out = append(out, cur)
	}
	return out
}

func (t *textWriter) findings(d *diagnose.Diagnosis) {
	if len(d.Findings) == 0 {
		t.printf("\n")
		t.wrap("", "", "No findings: nothing in this evidence crosses a rule's threshold.")
		return
	}
	t.printf("\n%s\n", t.style(ansiBold, fmt.Sprintf("Findings (%d)", len(d.Findings))))
	for _, f := range d.Findings {
		sev := f.Severity.String()
		switch f.Severity {
		case diagnose.Critical:
			sev = t.style(ansiRed+ansiBold, sev)
		case diagnose.Warning:
			sev = t.style(ansiYellow, sev)
		default:
			sev = t.style(ansiCyan, sev)
		}
		head := fmt.Sprintf("  %s  %s  ", f.Severity, f.ID)
		if runeLen(head+f.Title) <= t.opt.Width {
			t.printf("\n  %s  %s  %s\n", sev, t.style(ansiBold, f.ID), f.Title)
		} else {
			t.printf("\n  %s  %s\n    %s\n", sev, t.style(ansiBold, f.ID), f.Title)
		}
		msg := f.Message
		if f.Also > 0 {
			msg += fmt.Sprintf(" (Also in %s.)", countOf(f.Also, "other process", "other processes"))
		}
		t.wrap("    ", "    ", msg)
		if len(f.Evidence) > 0 {
			lw := 0
			for _, e := range f.Evidence {
				lw = max(lw, runeLen(e.Label))
			}
			lw = min(lw, 34)
			for _, e := range f.Evidence {
				val := fmtNum(e.Value)
				if isCount(e.Unit) && e.Value == math.Trunc(e.Value) {
					val = strconv.FormatFloat(e.Value, 'f', 0, 64)
					if e.Value >= 1e5 {
						val = countStr(int64(e.Value))
					}
				}
				if e.Unit != "" {
					val += " " + e.Unit
				}
				t.printf("      %s  %10s  %s\n", padRight(truncate(e.Label, lw), lw), val, t.style(ansiDim, truncate(t.source(e.Source), max(t.opt.Width-lw-22, 12))))
			}
		}
		for _, c := range f.Caveats {
			t.wrap("      caveat: ", "        ", c)
		}
		t.wrap("    Fix:    ", "            ", f.Remedy)
		t.wrap("    Verify: ", "            ", f.Verify)
	}
	t.printf("\n  %s\n", t.style(ansiDim, "gcdoctor explain ID tells more about a rule."))
}

// actions prints what to do first: the doctor's ranked summary.
func (t *textWriter) actions(d *diagnose.Diagnosis) {
	acts := d.Actions(5)
	if len(acts) == 0 {
		return
	}
	t.printf("\n%s\n", t.style(ansiBold, "What to do first"))
	for i, f := range acts {
		where := ""
		if len(f.Where) > 0 {
			where = " (" + t.source(f.Where[0].String()) + ")"
		}
		t.wrap(fmt.Sprintf("  %d. ", i+1), "     ", f.Title+where+": "+firstSentence(f.Remedy))
		t.wrap("     ", "     ", t.style(ansiDim, "Verify: "+f.Verify))
		if f.Command != "" {
			t.command("     $ ", "       ", f.Command)
		}
	}
}

// firstSentence returns text up to its first full stop.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}

// source shortens "input:12-30" to "lines 12-30" when there is one input.
func (t *textWriter) source(s string) string {
	if t.single == "" || !strings.HasPrefix(s, t.single+":") {
		return s
	}
	rest := s[len(t.single)+1:]
	if strings.Contains(rest, "-") {
		return "lines " + rest
	}
	return "line " + rest
}

// wrap prints text word-wrapped to the width, first line after first and the
// rest after indent.
func (t *textWriter) wrap(first, indent, text string) {
	width := t.opt.Width
	line := first
	col := runeLen(first)
	empty := true
	for _, word := range words(text) {
		wl := runeLen(word)
		if !empty && col+1+wl > width {
			t.printf("%s\n", line)
			line, col, empty = indent, runeLen(indent), true
		}
		if !empty {
			line += " "
			col++
		}
		line += word
		col += wl
		empty = false
	}
	t.printf("%s\n", line)
}

// command prints a shell command wrapped at the width, each broken line
// ending in a backslash, so that the lines run as one command when pasted
// into a shell. A word in single quotes is never broken.
func (t *textWriter) command(first, indent, cmd string) {
	line, col := first, runeLen(first)
	empty := true
	for _, word := range shellWords(cmd) {
		wl := runeLen(word)
		if !empty && col+1+wl+2 > t.opt.Width {
			t.printf("%s \\\n", line)
			line, col, empty = indent, runeLen(indent), true
		}
		if !empty {
			line += " "
			col++
		}
		line += word
		col += wl
		empty = false
	}
	t.printf("%s\n", line)
}

// shellWords splits a command at the spaces outside single quotes. A
// comment is one word: a backslash cannot continue it.
func shellWords(cmd string) []string {
	var out []string
	var w strings.Builder
	quoted := false
	for i, r := range cmd {
		switch {
		case r == '#' && !quoted && w.Len() == 0:
			return append(out, cmd[i:])
		case r == '\'':
			quoted = !quoted
		case r == ' ' && !quoted:
			if w.Len() > 0 {
				out = append(out, w.String())
				w.Reset()
			}
			continue
		}
		w.WriteRune(r)
	}
	if w.Len() > 0 {
		out = append(out, w.String())
	}
	return out
}

// words splits text at spaces but keeps a `code span` in one piece, so a
// command is never broken across lines.
func words(text string) []string {
	var out []string
	var span []string
	for _, f := range strings.Fields(text) {
		switch {
		case span != nil:
			span = append(span, f)
			if strings.Contains(f, "`") {
				out = append(out, strings.Join(span, " "))
				span = nil
			}
		case strings.Count(f, "`") == 1:
			span = []string{f}
		default:
			out = append(out, f)
		}
	}
	if span != nil {
		out = append(out, strings.Join(span, " "))
	}
	return out
}

// runEnv lists what a run's environment says about its GC: the Go
// version, GOGC and GOMEMLIMIT (unset ones as such), GOMAXPROCS, the CPUs
// and the cgroup memory limit, for every format alike.
func runEnv(r *diagnose.RunInfo) []string {
	var env []string
	if r.GoVersion != "" {
		env = append(env, r.GoVersion)
	}
	setting := func(name, v, unset string) string {
		if v == "" {
			return name + " " + unset
		}
		return name + "=" + v
	}
	env = append(env, setting("GOGC", r.GOGC, "unset (100)"), setting("GOMEMLIMIT", r.GOMEMLIMIT, "unset"))
	if r.GOMAXPROCS != "" {
		env = append(env, "GOMAXPROCS="+r.GOMAXPROCS)
	}
	if r.NumCPU > 0 {
		env = append(env, plural(r.NumCPU, "CPU"))
	}
	if r.CgroupMemoryLimit > 0 {
		env = append(env, "cgroup memory limit "+fmtBytes(r.CgroupMemoryLimit))
	}
	return env
}
