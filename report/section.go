package report

import (
	"bytes"
	"encoding/json"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

// Section is what one kind of evidence contributes to a report, built once
// as data by the evidence's builder (see sections). The formats only print
// sections: text, Markdown and HTML show the title, the figures, the tables
// and the caveats; HTML adds the charts; JSON takes the section's keys.
type Section struct {
	// ID names the section: the HTML anchor, and what Options.Sections
	// selects.
	ID    string
	Title string
	// Source is the input the section is about (a file name, often long:
	// the text report shortens it from the left), "" when none; Intro
	// describes it in one line, without a full stop.
	Source, Intro string
	// Alert is a warning that the figures are incomplete (a trace cut
	// short), shown before everything else.
	Alert string
	// Rows are the headline figures, label and value.
	Rows []Row
	// Tables follow the rows.
	Tables []*Table
	// Caveats limit what the section's figures say.
	Caveats []string
	// charts draws the section's charts for the HTML page and says which
	// it cannot draw, and why; nil for a section without charts.
	charts func(maxPoints int) (charts []*chart, missing []string, err error)
	// JSON is the section's part of the JSON document: top-level keys, in
	// order, each documented in docs/json.md. A section may have keys and
	// nothing to show elsewhere.
	JSON []Field
}

// Row is one headline figure of a section.
type Row struct {
	Label, Value string
}

// Table is a ranked or tabulated part of a section, like the output of
// pprof -top: fixed columns, one unit per column, and a caption or footer
// that admits what was left out.
type Table struct {
	// Caption is said before the table; Footer lines after it.
	Caption string
	Columns []Column
	Rows    []TableRow
	Footer  []string
}

// Column describes a column of a table.
type Column struct {
	Head string
	// Num columns hold figures: right-aligned.
	Num bool
	// Flex is the column that takes the width the others leave in the text
	// report (at most one per table, usually the last); its cells are cut
	// to fit, or wrapped onto further lines with Wrap.
	Flex, Wrap bool
	// Func columns hold qualified Go function names, which the text report
	// shortens to their package's last element ("demo.newBuf").
	Func bool
}

// TableRow is a row of cells, and notes that explain it (why a site
// allocates, the source line), printed under the row. Notes are prose:
// `code` between backticks.
type TableRow struct {
	Cells []string
	Notes []string
}

// empty reports whether the section has nothing to show in a text,
// Markdown or HTML report.
func (s *Section) empty() bool {
	return s.Intro == "" && s.Alert == "" && len(s.Rows) == 0 && len(s.Tables) == 0 && len(s.Caveats) == 0
}

// Field is a key of the JSON document and its value, which encodes with
// encoding/json.
type Field struct {
	Key   string
	Value any
}

// object is a JSON object whose keys keep their order.
type object []Field

// MarshalJSON encodes the fields in order, with HTML characters left as
// they are (the document is data, not a page).
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(f.Key)
		if err != nil {
			return nil, err
		}
		v, err := marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// builder makes a kind of evidence's section from a diagnosis; it returns
// nil when the diagnosis has no such evidence and the report would say
// nothing of its absence.
type builder func(d *diagnose.Diagnosis) *Section

// builders are the builders of every kind of evidence, in the order the
// reports show them: the built-in kinds, then those registered with
// RegisterSection.
var builders = []builder{gctraceSection, liveSection, heapSection, traceSection, crossSection, lintSection, tuningSection}

// RegisterSection adds the section of a kind of evidence that a package
// outside report adds (see diagnose.Extension): build returns nil when
// the diagnosis has none of it. Registered sections come after the
// built-in ones, in the order they were registered. It is meant to be
// called from an init function.
func RegisterSection(build func(d *diagnose.Diagnosis) *Section) {
	builders = append(builders, build)
}

// build returns the sections of a diagnosis, keeping those ids names (all
// when ids is empty).
func build(d *diagnose.Diagnosis, ids []string) []*Section {
	var out []*Section
	for _, b := range builders {
		s := b(d)
		if s == nil {
			continue
		}
		if len(ids) > 0 && !contains(ids, s.ID) {
			continue
		}
		out = append(out, s)
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
