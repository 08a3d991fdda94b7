package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/pacer"
)

const ansiGreen = "\x1b[32m"

// CompareText writes a comparison table for people, in the manner of
// benchstat: each sample as its median ± the half-width of its confidence
// interval in percent, each change from the baseline as a percentage with
// its p-value and sample sizes, or "~" when it is not significant, and the
// statistical caveats as numbered notes.
//
// Two columns are printed side by side, one line per benchmark. More
// columns, or the pacer model's predictions, do not fit beside each other
// in 80 columns: each metric then gets a block with one line per column
// (with two columns, only the metrics that carry predictions).
func CompareText(w io.Writer, t *compare.Table, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	tw := newTextWriter(w, opt)
	tw.wrap(tw.style(ansiBold, "gcdoctor:")+" ", "  ", t.Title)
	for _, c := range t.Config {
		tw.printf("%s\n", truncate(strings.TrimSpace(c), opt.Width))
	}
	wide := len(t.Columns) == 2
	for _, sec := range sections(t.Rows, wide) {
		tw.printf("\n")
		if wide && !predicted(sec[0]) {
			tw.wideSection(t, sec)
		} else {
			tw.longSection(t, sec)
		}
	}
	if len(tw.notes) > 0 || len(t.Caveats) > 0 {
		tw.printf("\n%s\n", tw.style(ansiBold, "Notes"))
		for i, n := range tw.notes {
			tw.wrap("  "+superscript(i+1)+" ", "    ", n)
		}
		for _, n := range t.Caveats {
			tw.wrap("  • ", "    ", n)
		}
	}
	return tw.err
}

// predicted reports whether a row carries a model prediction.
func predicted(r *compare.Row) bool {
	for _, c := range r.Cells {
		if c.Predicted != nil {
			return true
		}
	}
	return false
}

// sections splits rows into runs of the same metric. Side by side, the
// figures of whole runs (rows without a benchmark) share one section,
// since each has a single row, unless they carry predictions, which need
// the long layout.
func sections(rows []*compare.Row, wide bool) [][]*compare.Row {
	var out [][]*compare.Row
	for i, r := range rows {
		same := i > 0 && r.Metric == rows[i-1].Metric
		if wide && i > 0 && r.Benchmark == "" && rows[i-1].Benchmark == "" && !predicted(r) && !predicted(rows[i-1]) {
			same = true
		}
		if !same {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r)
	}
	return out
}

// metricLabel names a metric in a section header: a benchmark unit as
// benchstat shows it, a program figure with its unit.
func metricLabel(m compare.Metric) string {
	if m.Name == m.Unit || m.Unit == "" || m.Unit == "cycles" {
		return m.Name
	}
	return m.Name + " (" + m.Unit + ")"
}

// plainUnit reports whether values of the unit print as plain numbers
// rather than with benchstat's SI or binary prefixes.
func plainUnit(unit string) bool {
	switch unit {
	case "%", "ms", "MiB", "cycles":
		return true
	}
	return false
}

// rowFormatter formats the figures of one row with one scale, so that they
// line up and compare at a glance.
func rowFormatter(r *compare.Row) func(float64) string {
	if r.Metric.Unit == "cycles" {
		return func(v float64) string {
			if v == math.Trunc(v) && !math.IsInf(v, 0) {
				return fmt.Sprintf("%.0f", v)
			}
			return fmtNum(v)
		}
	}
	if plainUnit(r.Metric.Unit) {
		return fmtNum
	}
	var vals []float64
	for _, c := range r.Cells {
		if !math.IsNaN(c.Summary.Median) {
			vals = append(vals, c.Summary.Median)
		}
		if p := c.Predicted; p != nil && pacer.Valid(p.Value) {
			vals = append(vals, p.Value)
		}
	}
	sc := benchunit.CommonScale(vals, benchunit.ClassOf(r.Metric.Unit))
	return func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "n/a"
		}
		return sc.Format(v)
	}
}

// ciPercent is the half-width of a confidence interval as a percentage of
// its centre, as benchstat prints it.
func ciPercent(s compare.Summary) string {
	switch {
	case math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0):
		return "∞"
	case s.Median == 0:
		if s.Lo == 0 && s.Hi == 0 {
			return "0%"
		}
		return "?"
	case math.Signbit(s.Lo) != math.Signbit(s.Median) || math.Signbit(s.Hi) != math.Signbit(s.Median):
		return "?"
	}
	v := math.Max(s.Hi/s.Median-1, 1-s.Lo/s.Median)
	return fmt.Sprintf("%.0f%%", 100*v)
}

// cellText is a cell split into the parts that are aligned separately.
type cellText struct {
	center, ci, marks string // "25.5n", "2%", "¹"
	delta, dmarks     string // "-12.34% (p=0.002 n=6)", "²"
	dcolor            string
	predicted         string
	empty             bool
}

func (t *textWriter) cellTexts(r *compare.Row) []cellText {
	f := rowFormatter(r)
	out := make([]cellText, len(r.Cells))
	for i, c := range r.Cells {
		ct := &out[i]
		if c.Summary.N == 0 {
			ct.empty = true
		} else {
			ct.center = f(c.Summary.Median)
			ct.ci = ciPercent(c.Summary)
			for _, w := range c.Summary.Caveats {
				ct.marks += t.footnote(w)
			}
		}
		if d := c.Delta; d != nil {
			ct.delta = d.String()
			for _, w := range d.Caveats {
				ct.dmarks += t.footnote(w)
			}
			switch {
			case !d.Significant:
				ct.dcolor = ansiDim
			case d.Better:
				ct.dcolor = ansiGreen
			case r.Metric.Better != 0 && d.Percent != 0:
				ct.dcolor = ansiRed
			}
		}
		if p := c.Predicted; p != nil && pacer.Valid(p.Value) {
			ct.predicted = f(p.Value)
			if pacer.Valid(p.Low) && pacer.Valid(p.High) && p.Low != p.High {
				ct.predicted += " (" + f(p.Low) + "–" + f(p.High) + ")"
			}
		}
	}
	return out
}

// valueWidths are the widths of the aligned parts of summary cells.
type valueWidths struct{ center, ci, marks int }

func (v *valueWidths) add(ct cellText) {
	v.center = max(v.center, runeLen(ct.center))
	v.ci = max(v.ci, runeLen(ct.ci))
	v.marks = max(v.marks, runeLen(ct.marks))
}

func (v valueWidths) total() int {
	if v.center == 0 {
		return 1 // "—"
	}
	return v.center + 3 + v.ci + v.marks
}

// value formats a summary with its "±" in the same column as the others.
func (v valueWidths) value(ct cellText) string {
	if ct.empty {
		return padRight("—", v.total())
	}
	return padLeft(ct.center, v.center) + " ± " + padRight(ct.ci, v.ci) + padRight(ct.marks, v.marks)
}

func (t *textWriter) wideSection(tab *compare.Table, rows []*compare.Row) {
	label := metricLabel(rows[0].Metric)
	if rows[0].Benchmark == "" {
		label = "per run"
	}
	texts := make([][]cellText, len(rows))
	var vw [2]valueWidths
	dw := len("vs base")
	nameW := runeLen(label)
	for i, r := range rows {
		texts[i] = t.cellTexts(r)
		for j := range 2 {
			vw[j].add(texts[i][j])
		}
		dw = max(dw, runeLen(texts[i][1].delta+texts[i][1].dmarks))
		nameW = max(nameW, runeLen(rowName(r)))
	}
	colW := [2]int{max(vw[0].total(), runeLen(tab.Columns[0])), max(vw[1].total(), runeLen(tab.Columns[1]))}
	nameW = max(min(nameW, t.opt.Width-colW[0]-colW[1]-dw-6), 12)
	t.printf("%s  %s  %s  %s\n", t.style(ansiBold, padRight(truncate(label, nameW), nameW)),
		padLeft(truncate(tab.Columns[0], colW[0]), colW[0]), padLeft(truncate(tab.Columns[1], colW[1]), colW[1]), "vs base")
	for i, r := range rows {
		ct := texts[i]
		line := padRight(truncate(rowName(r), nameW), nameW) + "  " +
			padLeft(vw[0].value(ct[0]), colW[0]) + "  " + padLeft(vw[1].value(ct[1]), colW[1])
		if ct[1].delta != "" {
			line += "  " + t.style(ct[1].dcolor, ct[1].delta) + ct[1].dmarks
		}
		t.printf("%s\n", strings.TrimRight(line, " "))
	}
}

// rowName is the label of a row in a wide section.
func rowName(r *compare.Row) string {
	if r.Benchmark == "" {
		return metricLabel(r.Metric)
	}
	return r.Benchmark
}

// longSection prints one metric as a block: for each benchmark (or once
// for a program), a line per column with its summary, its change from the
// baseline and the model's prediction.
func (t *textWriter) longSection(tab *compare.Table, rows []*compare.Row) {
	label := metricLabel(rows[0].Metric)
	texts := make([][]cellText, len(rows))
	var vw valueWidths
	dw, pw := 0, 0
	colW := 0
	for _, c := range tab.Columns {
		colW = max(colW, runeLen(c))
	}
	for i, r := range rows {
		texts[i] = t.cellTexts(r)
		for _, ct := range texts[i] {
			vw.add(ct)
			dw = max(dw, runeLen(ct.delta+ct.dmarks))
			pw = max(pw, runeLen(ct.predicted))
		}
	}
	vs := "vs " + tab.Columns[0]
	dw = max(dw, runeLen(vs))
	indent := "  "
	if rows[0].Benchmark != "" {
		indent = "    "
	}
	colW = min(colW, max(t.opt.Width-len(indent)-vw.total()-dw-6, 8))
	head := padRight(label, len(indent)+colW) + "  " + padLeft("median ± CI", max(vw.total(), 11)) + "  " + padRight(vs, dw)
	if pw > 0 {
		head += "  predicted"
	}
	t.printf("%s\n", t.style(ansiBold, strings.TrimRight(head, " ")))
	for i, r := range rows {
		if r.Benchmark != "" {
			t.printf("  %s\n", truncate(r.Benchmark, t.opt.Width-2))
		}
		for j, ct := range texts[i] {
			line := indent + padRight(truncate(tab.Columns[j], colW), colW) + "  " + padLeft(vw.value(ct), max(vw.total(), 11)) + "  "
			d := ct.delta + ct.dmarks
			if j == 0 {
				d = "base"
			}
			styled := d
			if ct.delta != "" {
				styled = t.style(ct.dcolor, ct.delta) + ct.dmarks
			}
			line += styled + strings.Repeat(" ", max(dw-runeLen(d), 0))
			if ct.predicted != "" {
				line += "  " + ct.predicted
			}
			t.printf("%s\n", strings.TrimRight(line, " "))
		}
	}
}

type jsonCompare struct {
	SchemaVersion int               `json:"schema_version"`
	Tool          string            `json:"tool"`
	ToolVersion   string            `json:"tool_version,omitempty"`
	Kind          string            `json:"kind"`
	Title         string            `json:"title"`
	Command       []string          `json:"command,omitempty"`
	Config        []string          `json:"config"`
	Alpha         float64           `json:"alpha"`
	Confidence    float64           `json:"confidence"`
	Columns       []jsonCompareCol  `json:"columns"`
	Rows          []jsonCompareRow  `json:"rows"`
	Model         *jsonCompareModel `json:"model,omitempty"`
	Notes         []string          `json:"notes"`
}

type jsonCompareCol struct {
	Label         string `json:"label"`
	GOGC          *int   `json:"gogc,omitempty"`
	MemlimitBytes *int64 `json:"memlimit_bytes,omitempty"`
}

type jsonCompareRow struct {
	Benchmark string            `json:"benchmark,omitempty"`
	Metric    string            `json:"metric"`
	Unit      string            `json:"unit"`
	Better    int               `json:"better"`
	Cells     []jsonCompareCell `json:"cells"`
}

type jsonCompareCell struct {
	N          int               `json:"n"`
	Values     []num             `json:"values"`
	Median     num               `json:"median"`
	CILow      num               `json:"ci_low"`
	CIHigh     num               `json:"ci_high"`
	CILevel    num               `json:"ci_level"`
	Warnings   []string          `json:"warnings"`
	Delta      *jsonCompareDelta `json:"delta"`
	Prediction *jsonRange        `json:"predicted,omitempty"`
}

type jsonCompareDelta struct {
	Percent     num      `json:"percent"`
	P           num      `json:"p"`
	NBase       int      `json:"n_base"`
	N           int      `json:"n"`
	Significant bool     `json:"significant"`
	Improvement bool     `json:"improvement"`
	Text        string   `json:"text"`
	Warnings    []string `json:"warnings"`
}

type jsonCompareModel struct {
	FromColumn int      `json:"from_column"`
	Error      string   `json:"error,omitempty"`
	Warnings   []string `json:"warnings"`
}

// CompareSchemaVersion is the version of the document CompareJSON writes
// (diff, sweep and bench); it changes as SchemaVersion does, on its own.
const CompareSchemaVersion = 1

// CompareJSON writes a comparison table as one JSON document; docs/json.md
// describes it. Unknown figures (an empty sample, an interval the sample is
// too small for) are null.
func CompareJSON(w io.Writer, t *compare.Table, toolVersion string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(compareDoc(t, toolVersion))
}

// compareDoc is the JSON document of a comparison table.
func compareDoc(t *compare.Table, toolVersion string) jsonCompare {
	doc := jsonCompare{SchemaVersion: CompareSchemaVersion, Tool: "gcdoctor", ToolVersion: toolVersion, Kind: t.Kind,
		Title: t.Title, Command: t.Command, Config: nonNil(t.Config), Alpha: compare.Alpha, Confidence: compare.Confidence,
		Rows: []jsonCompareRow{}, Notes: nonNil(t.Caveats)}
	for i, c := range t.Columns {
		col := jsonCompareCol{Label: c}
		if i < len(t.Settings) {
			s := t.Settings[i]
			col.GOGC, col.MemlimitBytes = &s.GOGC, &s.MemoryLimit
		}
		doc.Columns = append(doc.Columns, col)
	}
	for _, r := range t.Rows {
		jr := jsonCompareRow{Benchmark: r.Benchmark, Metric: r.Metric.Name, Unit: r.Metric.Unit, Better: r.Metric.Better}
		for _, c := range r.Cells {
			jc := jsonCompareCell{N: c.Summary.N, Values: []num{}, Median: num(c.Summary.Median), CILow: num(c.Summary.Lo),
				CIHigh: num(c.Summary.Hi), CILevel: num(c.Summary.Confidence), Warnings: nonNil(c.Summary.Caveats)}
			if c.Summary.N == 0 {
				jc.CILevel = num(math.NaN())
			}
			for _, v := range c.Sample {
				jc.Values = append(jc.Values, num(v))
			}
			if d := c.Delta; d != nil {
				jc.Delta = &jsonCompareDelta{Percent: num(d.Percent), P: num(d.P), NBase: d.N1, N: d.N2,
					Significant: d.Significant, Improvement: d.Better, Text: d.String(), Warnings: nonNil(d.Caveats)}
			}
			if p := c.Predicted; p != nil {
				jp := rangeJSON(*p)
				jc.Prediction = &jp
			}
			jr.Cells = append(jr.Cells, jc)
		}
		doc.Rows = append(doc.Rows, jr)
	}
	if t.ModelColumn >= 0 && (t.Model != nil || t.ModelErr != "") {
		m := &jsonCompareModel{FromColumn: t.ModelColumn, Error: t.ModelErr, Warnings: []string{}}
		if t.Model != nil {
			m.Warnings = nonNil(t.Model.Caveats)
		}
		doc.Model = m
	}
	return doc
}
