// Package report renders what gcdoctor finds: a diagnose.Diagnosis for
// people (text, Markdown, an HTML page with charts), for programs (JSON)
// and for code scanning (SARIF); docs/reports.md describes each. It also
// prints gcdoctor's other documents: comparisons (diff, sweep, bench), the
// source checks (lint) and worker sizing (workers). Nothing else in
// gcdoctor formats output.
//
// Each kind of evidence builds its section of a diagnosis once, as data
// (see Section and builders); the formats only print sections, the
// findings and what to do first. Every document's formats are looked up by
// name in a table (DiagnosisFormats, CompareFormats, LintFormats,
// WorkersFormats).
package report

import (
	"io"
	"strings"

	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/lint"
)

// Options tune a document; each format takes what applies to it.
type Options struct {
	// ToolVersion is printed in the footer and recorded in JSON and SARIF.
	ToolVersion string
	// Color and Width shape the text report.
	Color bool
	Width int
	// Sections shows only the sections with these IDs (all when empty),
	// and HideFindings leaves the findings out of the text report: for a
	// command that answers one question (whatif). JSON always has all.
	Sections     []string
	HideFindings bool
	// Dir is the directory file names are shown relative to (lint).
	Dir string
}

func (o Options) text() TextOptions {
	return TextOptions{Color: o.Color, Width: o.Width, Sections: o.Sections, HideFindings: o.HideFindings}
}

// Format writes a document of type T in one form.
type Format[T any] struct {
	Name string
	// Doc says what the format is for, for help texts.
	Doc string
	// Page reports whether the format is a document to save rather than
	// read on a terminal.
	Page bool
	// Render writes doc.
	Render func(w io.Writer, doc T, o Options) error
}

// DiagnosisFormats are the forms of a diagnosis.
// DocsURL is where gcdoctor's documentation is read online: help texts
// point there, since an installed gcdoctor comes without docs/.
const DocsURL = "https://github.com/gcdoctor/gcdoctor/blob/main/docs/"

var DiagnosisFormats = []Format[*diagnose.Diagnosis]{
	{Name: "text", Doc: "for people, in a terminal", Render: func(w io.Writer, d *diagnose.Diagnosis, o Options) error {
		return Text(w, d, o.text())
	}},
	{Name: "json", Doc: "for programs; schema at " + DocsURL + "json.md", Render: func(w io.Writer, d *diagnose.Diagnosis, o Options) error {
		return JSON(w, d, o.ToolVersion)
	}},
	{Name: "markdown", Doc: "to paste into an issue or a pull request", Render: func(w io.Writer, d *diagnose.Diagnosis, o Options) error {
		return Markdown(w, d, o.ToolVersion)
	}},
	{Name: "html", Doc: "one offline page with charts", Page: true, Render: func(w io.Writer, d *diagnose.Diagnosis, o Options) error {
		return HTML(w, d, HTMLOptions{ToolVersion: o.ToolVersion})
	}},
	{Name: "sarif", Doc: "for GitHub code scanning", Render: func(w io.Writer, d *diagnose.Diagnosis, o Options) error {
		return SARIF(w, d, o.ToolVersion)
	}},
}

// CompareFormats are the forms of a comparison (diff, sweep, bench).
var CompareFormats = []Format[*compare.Table]{
	{Name: "text", Doc: "benchstat's table", Render: func(w io.Writer, t *compare.Table, o Options) error {
		return CompareText(w, t, o.text())
	}},
	{Name: "json", Doc: "for programs; schema at " + DocsURL + "json.md", Render: func(w io.Writer, t *compare.Table, o Options) error {
		return CompareJSON(w, t, o.ToolVersion)
	}},
}

// LintFormats are the forms of the source checks' result.
var LintFormats = []Format[*lint.Result]{
	{Name: "text", Doc: "one finding per line, as go vet prints them", Render: func(w io.Writer, r *lint.Result, o Options) error {
		return LintText(w, r, o.Dir, o.text())
	}},
	{Name: "json", Doc: "for programs; schema at " + DocsURL + "json.md", Render: func(w io.Writer, r *lint.Result, o Options) error {
		return LintJSON(w, r, o.ToolVersion)
	}},
	{Name: "sarif", Doc: "SARIF 2.1.0, for GitHub code scanning", Render: func(w io.Writer, r *lint.Result, o Options) error {
		return lint.WriteSARIF(w, r)
	}},
}

// WorkersFormats are the forms of a worker-count recommendation.
var WorkersFormats = []Format[*Workers]{
	{Name: "text", Doc: "for people", Render: func(w io.Writer, wr *Workers, o Options) error {
		return WorkersText(w, wr, o.text())
	}},
	{Name: "json", Doc: "for programs; schema at " + DocsURL + "json.md", Render: func(w io.Writer, wr *Workers, o Options) error {
		return WorkersJSON(w, wr, o.ToolVersion)
	}},
}

// Find returns the format called name (case-insensitive).
func Find[T any](formats []Format[T], name string) (Format[T], bool) {
	for _, f := range formats {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return Format[T]{}, false
}

// Names lists the formats' names.
func Names[T any](formats []Format[T]) []string {
	var out []string
	for _, f := range formats {
		out = append(out, f.Name)
	}
	return out
}
