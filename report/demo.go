package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/diagnose"
)

// DemoText writes gcdoctor demo's before/after comparison: the table with
// benchstat's statistics, then the findings of each side.
func DemoText(w io.Writer, tab *compare.Table, before, after *diagnose.Diagnosis, opt TextOptions) error {
	if err := CompareText(w, tab, opt); err != nil {
		return err
	}
	if opt.Width <= 0 {
		opt.Width = 80
	}
	t := newTextWriter(w, opt)
	list := func(d *diagnose.Diagnosis) string {
		var s []string
		for _, f := range d.Findings {
			s = append(s, fmt.Sprintf("%s (%s)", f.ID, f.Severity))
		}
		if len(s) == 0 {
			return "none"
		}
		return strings.Join(s, ", ")
	}
	t.printf("\n")
	t.wrap("  findings before: ", strings.Repeat(" ", 19), list(before))
	t.wrap("  findings after:  ", strings.Repeat(" ", 19), list(after))
	return t.err
}

// Paragraph writes text wrapped at the width, every line after indent.
func Paragraph(w io.Writer, indent, text string, width int) error {
	if width <= 0 {
		width = 80
	}
	t := newTextWriter(w, TextOptions{Width: width})
	t.wrap(indent, indent, text)
	return t.err
}
