// Package report renders a diagnose.Diagnosis for people (text, Markdown,
// an HTML page with charts), for programs (JSON) and for code scanning
// (SARIF); docs/reports.md describes each. Nothing else in gcdoctor formats
// output.
//
// Each kind of evidence builds its section once, as data (see Section and
// builders); the formats only print sections, the findings and what to do
// first. The formats are looked up by name in one table (Formats).
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

// Options tune a report; each format takes what applies to it.
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
}

// Format is one form of report.
type Format struct {
	Name string
	// Doc says what the format is for, for help texts.
	Doc string
	// Page reports whether the format is a document to save rather than
	// read on a terminal.
	Page   bool
	render func(io.Writer, *diagnose.Diagnosis, Options) error
}

var formats = []Format{
	{Name: "text", Doc: "for people, in a terminal", render: func(w io.Writer, d *diagnose.Diagnosis, o Options) error {
		return Text(w, d, TextOptions{Color: o.Color, Width: o.Width, Sections: o.Sections, HideFindings: o.HideFindings})
	}},
	{Name: "json", Doc: "for programs (schema: docs/json.md)", render: func(w io.Writer, d *diagnose.Diagnosis, o Options) error {
		return JSON(w, d, o.ToolVersion)
	}},
	{Name: "markdown", Doc: "to paste into an issue or a pull request", render: func(w io.Writer, d *diagnose.Diagnosis, o Options) error {
		return Markdown(w, d, o.ToolVersion)
	}},
	{Name: "html", Doc: "one offline page with charts", Page: true, render: func(w io.Writer, d *diagnose.Diagnosis, o Options) error {
		return HTML(w, d, HTMLOptions{ToolVersion: o.ToolVersion})
	}},
	{Name: "sarif", Doc: "for GitHub code scanning", render: func(w io.Writer, d *diagnose.Diagnosis, o Options) error {
		return SARIF(w, d, o.ToolVersion)
	}},
}

// Formats returns every format, text first.
func Formats() []Format { return append([]Format(nil), formats...) }

// Lookup returns the format called name (case-insensitive).
func Lookup(name string) (Format, bool) {
	for _, f := range formats {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return Format{}, false
}

// Render writes the diagnosis in this format.
func (f Format) Render(w io.Writer, d *diagnose.Diagnosis, o Options) error {
	if f.render == nil {
		return fmt.Errorf("report: no format %q", f.Name)
	}
	return f.render(w, d, o)
}
