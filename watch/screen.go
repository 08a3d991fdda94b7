package watch

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/gcdoctor/gcdoctor/internal/terminal"
)

// Columns of a screen line: the label, the value, then the sparkline in
// what is left of the width.
const (
	labelWidth = 12
	valueWidth = 12
	// MinWidth is the narrowest screen drawn; a narrower terminal gets
	// it cut at its edge.
	MinWidth = 40
)

// Style colours a screen. The zero Style draws no colour.
type Style struct {
	r     *lipgloss.Renderer
	color bool
}

// NewStyle returns the style of a screen, coloured or not (NO_COLOR, a
// pipe, --color never).
func NewStyle(color bool) Style {
	r := lipgloss.NewRenderer(nil)
	if color {
		r.SetColorProfile(termenv.ANSI)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return Style{r: r, color: color}
}

func (st Style) paint(s, color string, bold bool) string {
	if !st.color || st.r == nil {
		return s
	}
	ls := st.r.NewStyle().Bold(bold)
	if color != "" {
		ls = ls.Foreground(lipgloss.Color(color))
	}
	return ls.Render(s)
}

// severityColor is the ANSI colour of a severity or of a level that
// reaches it.
func severityColor(sev string) string {
	switch sev {
	case "critical":
		return "1"
	case "warning":
		return "3"
	}
	return "6"
}

// Screen draws a frame in width columns and at most height lines (0 for
// no limit): the figures of the last interval with sparklines of the
// history, then the findings, then the keys.
func Screen(f *Frame, width, height int, st Style) string {
	width = max(width, MinWidth)
	var lines []string
	elapsed := "0:00"
	if !f.Started.IsZero() && !f.Point.T.IsZero() {
		elapsed = clock(f.Point.T.Sub(f.Started))
	}
	// What the program or its service gave is escaped here too, whoever
	// filled the frame.
	title := "gcdoctor watch · " + terminal.Escape(f.Name)
	if len(f.Sources) > 0 {
		title += " · " + terminal.Escape(strings.Join(f.Sources, ", "))
	}
	lines = append(lines, st.paint(pad(title, width-len(elapsed)), "", true)+elapsed)
	lines = append(lines, strings.Repeat("─", width))
	if len(f.History) == 0 {
		wait := "waiting for the second sample…"
		if f.Err != "" {
			wait = "error: " + terminal.Escape(f.Err)
		}
		lines = append(lines, fit(wait, width))
	} else {
		lines = append(lines, figureLines(f, width, st)...)
	}
	lines = append(lines, "")
	lines = append(lines, findingLines(f, width, st)...)
	if f.Output != "" {
		lines = append(lines, "", fit("output: "+terminal.Escape(f.Output), width))
	}
	if f.Err != "" && len(f.History) > 0 {
		lines = append(lines, "", st.paint(fit("last poll failed: "+terminal.Escape(f.Err), width), "3", false))
	}
	keys := "q quit"
	if f.Ended {
		// Watching stops with the program: no key is waited for.
		keys = "the program ended"
	}
	if height > 0 && len(lines)+2 > height {
		lines = lines[:max(height-2, 1)]
	}
	lines = append(lines, "", st.paint(keys, "8", false))
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// row is one figure of the screen: how it reads, its series, and the
// level it is coloured at.
type row struct {
	label, value string
	series       func(Point) float64
	color        string
}

func figureLines(f *Frame, width int, st Style) []string {
	p := f.Point
	cpu := cpuText(p)
	cpuColor := ""
	switch {
	case p.GCCPU >= 0.25:
		cpuColor = "1"
	case p.GCCPU >= 0.10:
		cpuColor = "3"
	}
	rows := []row{
		{"GC CPU", cpu, func(p Point) float64 { return p.GCCPU }, cpuColor},
		{"cycles/s", num(p.CyclesPerSecond), func(p Point) float64 { return p.CyclesPerSecond }, ""},
		{"pause p99", msText(p.PauseP99MS), func(p Point) float64 { return p.PauseP99MS }, ""},
		{"heap", size(p.HeapAllocBytes), func(p Point) float64 { return p.HeapAllocBytes }, ""},
		{"RSS", size(p.RSSBytes), func(p Point) float64 { return p.RSSBytes }, ""},
		{"goroutines", count(p.Goroutines), func(p Point) float64 { return p.Goroutines }, ""},
		{"alloc rate", rate(p.AllocBytesPerSecond), func(p Point) float64 { return p.AllocBytesPerSecond }, ""},
	}
	spark := width - labelWidth - valueWidth
	var out []string
	for _, r := range rows {
		line := pad(r.label, labelWidth) + st.paint(pad(r.value, valueWidth), r.color, r.color != "")
		if spark >= 4 {
			line += sparkline(f.History, r.series, spark)
		}
		out = append(out, line)
		if r.label == "GC CPU" && p.GCCPUSinceStart {
			out = append(out, fit(strings.Repeat(" ", labelWidth)+"avg: since the program started; no source gives the interval's", width))
		}
		if r.label == "heap" {
			limit := "none"
			if !math.IsInf(p.MemoryLimitBytes, 1) {
				limit = size(p.MemoryLimitBytes)
			}
			out = append(out, fit(strings.Repeat(" ", labelWidth)+"goal "+size(p.HeapGoalBytes)+" · live "+size(p.LiveHeapBytes)+" · limit "+limit, width))
		}
	}
	return out
}

func findingLines(f *Frame, width int, st Style) []string {
	if len(f.History) == 0 {
		return nil
	}
	head := fmt.Sprintf("findings of the last %d s", int(math.Round(float64(span)*f.Point.WindowS)))
	if len(f.Findings) == 0 {
		return []string{head + ": none"}
	}
	out := []string{head + ":"}
	for _, x := range f.Findings {
		since := "since " + clock(x.Since.Sub(f.Started))
		lead := fmt.Sprintf(" %-8s %s ", x.Severity, x.ID)
		body := fit(terminal.Escape(x.Title), width-len([]rune(lead))-len(since)-1)
		gap := width - len([]rune(lead)) - len([]rune(body)) - len(since)
		out = append(out, st.paint(lead, severityColor(x.Severity), true)+body+strings.Repeat(" ", max(gap, 1))+since)
		if x.Message != "" {
			out = append(out, fit("   "+terminal.Escape(x.Message), width))
		}
	}
	return out
}

// cpuText is the GC CPU as a screen or a line shows it: ≈ before an
// estimate, avg after the average since the start.
func cpuText(p Point) string {
	s := pct(p.GCCPU)
	switch {
	case s == "–":
	case p.GCCPUSinceStart:
		s += " avg"
	case p.GCCPUEstimated:
		s = "≈" + s
	}
	return s
}

// sparkBlocks draw a value from the lowest to the highest of those shown.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the last n points of a series, scaled from zero (or its
// lowest, when that is below zero) to its highest, so that a steady figure
// draws a steady line; an unknown value is a blank.
func sparkline(history []Point, series func(Point) float64, n int) string {
	if len(history) > n {
		history = history[len(history)-n:]
	}
	lo, hi := 0.0, math.Inf(-1)
	for _, p := range history {
		if v := series(p); !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	var b strings.Builder
	for _, p := range history {
		v := series(p)
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			b.WriteRune(' ')
		case hi <= lo:
			b.WriteRune(sparkBlocks[0])
		default:
			b.WriteRune(sparkBlocks[int((v-lo)/(hi-lo)*float64(len(sparkBlocks)-1)+0.5)])
		}
	}
	return b.String()
}

// fit cuts s to width columns, ending in … when cut.
func fit(s string, width int) string {
	r := []rune(s)
	if width <= 0 {
		return ""
	}
	if len(r) <= width {
		return s
	}
	return string(r[:width-1]) + "…"
}

func pad(s string, width int) string {
	s = fit(s, width-1)
	return s + strings.Repeat(" ", width-len([]rune(s)))
}

func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

func known(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func pct(v float64) string {
	if !known(v) {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", v*100)
}

func num(v float64) string {
	if !known(v) {
		return "–"
	}
	return fmt.Sprintf("%.1f", v)
}

func count(v float64) string {
	if !known(v) {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

func msText(v float64) string {
	if !known(v) {
		return "–"
	}
	return fmt.Sprintf("%.2f ms", v)
}

func size(v float64) string {
	switch {
	case !known(v):
		return "–"
	case v >= 1<<30:
		return fmt.Sprintf("%.2f GiB", v/(1<<30))
	default:
		return fmt.Sprintf("%.1f MiB", v/(1<<20))
	}
}

func rate(v float64) string {
	if !known(v) {
		return "–"
	}
	return size(v) + "/s"
}
