package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

// maxLintRows bounds the source-check rows a report lists; JSON has them
// all.
const maxLintRows = 15

// lintSection lists the source checks' findings, heaviest line first when
// a profile weighed them; nil when the checks were not run.
func lintSection(d *diagnose.Diagnosis) *Section {
	l := d.Lint
	if l == nil {
		return nil
	}
	sec := &Section{ID: "lint", Title: "Source checks",
		Intro: fmt.Sprintf("gcdoctor lint %s, %s", strings.Join(l.Patterns, " "), plural(len(d.LintRanked), "finding"))}
	weighed := len(d.LintRanked) > 0 && d.LintRanked[0].Weighed
	if weighed {
		sec.Intro += ", ranked by the bytes the allocation profile charges to their line"
	}
	if len(l.Broken) > 0 {
		sec.Caveats = append(sec.Caveats, fmt.Sprintf("%s did not compile and were checked as far as possible: %s", plural(len(l.Broken), "package"), strings.Join(l.Broken, ", ")))
	}
	sec.JSON = []Field{{"lint", lintJSON(d)}}
	if len(d.LintRanked) == 0 {
		return sec
	}
	t := &Table{Columns: []Column{{Head: "where"}, {Head: "check"}, {Head: "message", Flex: true, Wrap: true}}}
	if weighed {
		t.Columns = append([]Column{{Head: "alloc", Num: true}, {Head: "share", Num: true}}, t.Columns...)
	}
	through, cold := false, false
	for i, f := range d.LintRanked {
		if i == maxLintRows {
			t.Footer = append(t.Footer, fmt.Sprintf("… and %d more (--format json lists them all).", len(d.LintRanked)-i))
			break
		}
		check := f.Rule
		if f.Fixable {
			check += " (fix)"
		}
		cells := []string{fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line), check, f.Message}
		if weighed {
			alloc, share := "–", "cold"
			cold = cold || f.Bytes <= 0
			if f.Bytes > 0 {
				alloc, share = fmtBytes(f.Bytes), fmt.Sprintf("%.1f%%", f.Share*100)
				if f.Through {
					share += "*"
					through = true
				}
			}
			cells = append([]string{alloc, share}, cells...)
		}
		t.Rows = append(t.Rows, TableRow{Cells: cells})
	}
	if through {
		t.Footer = append(t.Footer, "*: allocated by what the line calls, not at the line itself.")
	}
	if cold {
		t.Footer = append(t.Footer, "cold: the profile saw no allocation at the line under this load.")
	}
	sec.Tables = append(sec.Tables, t)
	return sec
}

// jsonLint is the source checks' part of a diagnosis.
type jsonLint struct {
	Patterns []string          `json:"patterns"`
	Weighed  bool              `json:"weighed"`
	Findings []jsonLintFinding `json:"findings"`
	Broken   []string          `json:"broken_packages"`
}

type jsonLintFinding struct {
	Rank     int    `json:"rank"`
	Rule     string `json:"rule"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Message  string `json:"message"`
	Fixable  bool   `json:"fixable"`
	Bytes    int64  `json:"alloc_bytes"`
	Share    num    `json:"share"`
	HeapRank int    `json:"heap_rank,omitempty"`
	Through  bool   `json:"through_call"`
}

func lintJSON(d *diagnose.Diagnosis) *jsonLint {
	jl := &jsonLint{Patterns: nonNil(d.Lint.Patterns), Findings: []jsonLintFinding{}, Broken: nonNil(d.Lint.Broken)}
	for i, f := range d.LintRanked {
		jl.Weighed = f.Weighed
		jl.Findings = append(jl.Findings, jsonLintFinding{Rank: i + 1, Rule: f.Rule, File: f.File, Line: f.Line, Column: f.Column,
			Message: f.Message, Fixable: f.Fixable, Bytes: f.Bytes, Share: num(f.Share), HeapRank: f.HeapRank, Through: f.Through})
	}
	return jl
}
