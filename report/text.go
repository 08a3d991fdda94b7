package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
)

// TextOptions tune Text.
type TextOptions struct {
	Color bool // ANSI colours (the caller decides: terminal, NO_COLOR)
	Width int  // wrap width, default 80
	// MaxSegments is how many processes the table lists when a log holds
	// several (default 8); the rest are counted.
	MaxSegments int
}

type textWriter struct {
	w      io.Writer
	single string // the only input's name, stripped from sources
	opt    TextOptions
	err    error
	notes  []string // footnotes, numbered in order of appearance
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

// Text writes the diagnosis for people: a headline per process, then the
// findings, most urgent first, then the caveats as numbered notes. It fits
// opt.Width columns.
func Text(w io.Writer, d *diagnose.Diagnosis, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	if opt.MaxSegments <= 0 {
		opt.MaxSegments = 8
	}
	t := &textWriter{w: w, opt: opt}
	if len(d.Log.Inputs) == 1 {
		t.single = d.Log.Inputs[0].Name
	}
	if len(d.Log.Inputs) > 0 {
		t.header(d)
	}
	segs := d.Log.Segments
	switch {
	case len(segs) == 1:
		t.segment(segs[0])
	case len(segs) > 1:
		t.segmentTable(d)
	}
	t.heapSection(d)
	t.traceSection(d)
	t.crossSection(d)
	t.lintSection(d)
	t.tuningSection(d)
	t.findings(d)
	if d.FirstActions {
		t.actions(d)
	}
	for _, n := range d.Notes {
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
	n := len(d.Log.Segments)
	procs := "1 process"
	if n != 1 {
		procs = fmt.Sprintf("%d processes", n)
	}
	t.printf("%s %s\n", t.style(ansiBold, "gcdoctor:"), truncateLeft(what, t.opt.Width-10))
	t.printf("  %s, %s, %s read", procs, plural(d.Log.Cycles(), "GC cycle"), plural(lines, "line"))
	if d.Log.Partial() && d.Run == nil {
		t.printf(" %s", t.style(ansiYellow, "(PARTIAL: input cut inside a gc line)"))
	}
	t.printf("\n")
	if r := d.Run; r != nil {
		t.printf("  exit status %d after %s s", r.ExitCode, fmtNum(r.WallS))
		if r.PeakRSS > 0 {
			t.printf(", peak RSS %s", fmtBytes(r.PeakRSS))
		}
		t.printf("\n")
		t.wrap("  ", "  ", strings.Join(runEnv(r), ", "))
	}
	for _, in := range d.Log.Inputs {
		if d.Run != nil && in.NErrors == 1 && in.Partial {
			continue // the exit cut the last line: said in the notes
		}
		if in.NErrors > 0 {
			t.printf("  %s\n", t.style(ansiYellow, fmt.Sprintf("%s unparsable, first at %v", plural(in.NErrors, "gc line"), in.Errors[0])))
		}
	}
}

// segment prints the headline figures of one process.
func (t *textWriter) segment(s *gctrace.Segment) {
	sm := &s.Summary
	t.printf("\n%s", t.style(ansiBold, "GC at a glance"))
	t.printf("  %s\n", t.style(ansiDim, fmt.Sprintf("%s, gc %d–%d, %s format", linesWord(s), sm.FirstGC, sm.LastGC, s.Format)))
	for _, r := range glanceRows(s, t.footnote) {
		t.wrap(fmt.Sprintf("  %-13s ", r[0]), strings.Repeat(" ", 16), r[1])
	}
	for _, w := range s.Warnings {
		t.wrap("  (", "   ", w+")")
	}
}

// segmentTable lists the processes of a multi-process log, the costliest
// first, and admits how many it left out.
func (t *textWriter) segmentTable(d *diagnose.Diagnosis) {
	segs := slices.Clone(d.Log.Segments)
	slices.SortStableFunc(segs, func(a, b *gctrace.Segment) int {
		return cmp.Compare(b.Summary.GCCPUMS, a.Summary.GCCPUMS)
	})
	n := min(len(segs), t.opt.MaxSegments)
	t.printf("\n%s", t.style(ansiBold, "Processes"))
	if n < len(segs) {
		t.printf("  %s", t.style(ansiDim, fmt.Sprintf("(the %d with the most GC CPU time of %d)", n, len(segs))))
	}
	t.printf("\n")
	t.printf("  %-4s %-12s %-18s %6s %7s %9s %9s\n", "#", "lines", "label", "cycles", "GC CPU", "max STW", "peak heap")
	for _, s := range segs[:n] {
		label := s.Label
		if label == "" {
			label = s.Process
		}
		label = strings.TrimPrefix(label, "# ")
		if label == "" {
			label = "-"
		}
		cpu := "n/a"
		if gctrace.Valid(s.Summary.GCCPUPercent) {
			cpu = fmtNum(s.Summary.GCCPUPercent) + "%"
		}
		t.printf("  %-4d %-12s %-18s %6d %7s %6s ms %6d MB\n", s.Index, truncate(lineSpan(s), 12), truncate(label, 18),
			s.Summary.Cycles, cpu, fmtNum(s.Summary.MaxPauseMS), s.Summary.PeakHeapMB)
	}
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
		if utf8.RuneCountInString(head+f.Title) <= t.opt.Width {
			t.printf("\n  %s  %s  %s\n", sev, t.style(ansiBold, f.ID), f.Title)
		} else {
			t.printf("\n  %s  %s\n    %s\n", sev, t.style(ansiBold, f.ID), f.Title)
		}
		msg := f.Message
		if f.Also > 0 {
			msg += fmt.Sprintf(" (Also in %d other processes.)", f.Also)
		}
		t.wrap("    ", "    ", msg)
		if len(f.Evidence) > 0 {
			lw := 0
			for _, e := range f.Evidence {
				lw = max(lw, utf8.RuneCountInString(e.Label))
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
			t.wrap("     ", "       ", "$ "+f.Command)
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
	col := utf8.RuneCountInString(first)
	empty := true
	for _, word := range words(text) {
		wl := utf8.RuneCountInString(word)
		if !empty && col+1+wl > width {
			t.printf("%s\n", line)
			line, col, empty = indent, utf8.RuneCountInString(indent), true
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

func padRight(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// runEnv lists what a run's environment says about its GC: the Go
// version, GOGC and GOMEMLIMIT (unset ones as such), GOMAXPROCS, the CPUs
// and the cgroup memory limit, for the text and markdown reports alike.
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

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func linesWord(s *gctrace.Segment) string {
	if s.FirstLine == s.LastLine {
		return fmt.Sprintf("line %d", s.FirstLine)
	}
	return "lines " + lineSpan(s)
}

// truncateLeft keeps the end of s, where a path's file name is.
func truncateLeft(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}

func lineSpan(s *gctrace.Segment) string {
	if s.FirstLine == s.LastLine {
		return strconv.Itoa(s.FirstLine)
	}
	return fmt.Sprintf("%d-%d", s.FirstLine, s.LastLine)
}

// fmtNum formats a figure with the precision the evidence supports: three
// significant digits, no exponent.
func fmtNum(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case math.Abs(v) >= 0.01:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// isCount reports whether a unit counts things, which print as integers.
func isCount(unit string) bool {
	switch unit {
	case "cycles", "lines", "goroutines", "count", "MB", "objects":
		return true
	}
	return false
}

func fmtBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	if b >= 1<<10 {
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}
