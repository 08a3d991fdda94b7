package report

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/heapprof"
	"github.com/gcdoctor/gcdoctor/internal/figure"
)

// The one set of formatters every format uses for figures, sizes, counts
// and names, so that a figure reads the same in text, Markdown, HTML and the
// commands that print tables of their own.

// FormatNum formats a figure with the precision the evidence supports:
// three significant digits, no exponent, "n/a" for a figure not known.
func FormatNum(v float64) string { return fmtNum(v) }

// fmtNum formats a figure with the precision the evidence supports (see
// internal/figure).
func fmtNum(v float64) string { return figure.Num(v) }

// isCount reports whether a unit counts things, which print as integers.
func isCount(unit string) bool {
	switch unit {
	case "cycles", "lines", "goroutines", "count", "MB", "objects":
		return true
	}
	return false
}

// FormatBytes formats a size in binary units: "512 KiB", "93 MiB",
// "14.43 GiB".
func FormatBytes(b int64) string { return fmtBytes(b) }

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

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// countOf returns "1 process" or "3 processes": plural for nouns that do not
// just take an s.
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func linesWord(s *gctrace.Segment) string {
	if s.FirstLine == s.LastLine {
		return fmt.Sprintf("line %d", s.FirstLine)
	}
	return "lines " + lineSpan(s)
}

func lineSpan(s *gctrace.Segment) string {
	if s.FirstLine == s.LastLine {
		return strconv.Itoa(s.FirstLine)
	}
	return fmt.Sprintf("%d-%d", s.FirstLine, s.LastLine)
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

func padRight(s string, n int) string {
	if k := runeLen(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

func padLeft(s string, n int) string {
	if k := runeLen(s); k < n {
		return strings.Repeat(" ", n-k) + s
	}
	return s
}

func truncate(s string, n int) string {
	if runeLen(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

// truncateLeft keeps the end of s, where a path's file name is.
func truncateLeft(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}

func topHeader(top *heapprof.Top) string {
	return top.String()
}

// shortFunc drops the import path's directories: "github.com/a/b.(*T).M"
// becomes "b.(*T).M".
func shortFunc(fn string) string {
	slash := -1
	for i := 0; i < len(fn); i++ {
		if fn[i] == '/' {
			slash = i
		}
		if fn[i] == '(' || fn[i] == '[' {
			break
		}
	}
	return fn[slash+1:]
}

func countStr(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f M", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.0f k", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// sentence ends a phrase with a full stop; "" stays "".
func sentence(s string) string {
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}
