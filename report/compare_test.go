package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/pacer"
)

func sampleTable(columns ...string) *compare.Table {
	t := &compare.Table{Kind: "diff", Title: "a.txt vs b.txt", Columns: columns}
	base := compare.Sample{1.0e-6, 1.1e-6, 1.2e-6, 1.3e-6, 1.4e-6, 1.5e-6}
	faster := compare.Sample{0.5e-6, 0.55e-6, 0.6e-6, 0.65e-6, 0.7e-6, 0.75e-6}
	m := compare.Metric{Name: "sec/op", Unit: "sec/op", Better: -1}
	for _, name := range []string{"Encode/small-8", "AVeryLongBenchmarkNameThatWillNotFitInTheColumnAtAll/case=large-8"} {
		samples := []compare.Sample{base}
		for range columns[1:] {
			samples = append(samples, faster)
		}
		t.Rows = append(t.Rows, compare.NewRow(name, m, samples))
	}
	samples := []compare.Sample{{40, 41, 42}}
	for range columns[1:] {
		samples = append(samples, compare.Sample{10, 11, 12})
	}
	t.Rows = append(t.Rows, compare.NewRow("", compare.MetricGCCount, samples))
	return t
}

func TestCompareTextWide(t *testing.T) {
	var b bytes.Buffer
	if err := CompareText(&b, sampleTable("before", "after"), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"sec/op", "Encode/small-8", "-50.00% (p=0.002 n=6)", "per run", "GC count", "~ (p=0.100 n=3)", "¹ need >= 6 samples"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	// Every "±" of a section sits in the same column.
	col := map[int]bool{}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("line wider than 80: %q", l)
		}
		if strings.Contains(l, "n ±") {
			for i, r := range []rune(l) {
				if r == '±' {
					col[i] = true
				}
			}
		}
	}
	if len(col) != 2 { // one column for before, one for after
		t.Errorf("± in %d columns, want 2:\n%s", len(col), out)
	}
}

func TestCompareTextLong(t *testing.T) {
	tab := sampleTable("GOGC=50", "GOGC=100", "GOGC=400")
	r := tab.Find("", "GC count")
	r.Cells[1].Predicted = &pacer.Range{Value: 12, Low: 10, High: 14}
	var b bytes.Buffer
	if err := CompareText(&b, tab, TextOptions{Width: 60}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"vs GOGC=50", "predicted", "12 (10–14)", "  Encode/small-8", "    GOGC=400"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 60 {
			t.Errorf("line wider than 60: %q", l)
		}
	}
}

func TestCompareJSON(t *testing.T) {
	tab := sampleTable("before", "after")
	tab.Rows = append(tab.Rows, compare.NewRow("", compare.MetricWall, []compare.Sample{{1, 2}, nil}))
	var b bytes.Buffer
	if err := CompareJSON(&b, tab, "test"); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc["schema_version"] != 1.0 || doc["kind"] != "diff" || doc["alpha"] != 0.05 {
		t.Errorf("header: %v", doc)
	}
	rows := doc["rows"].([]any)
	wall := rows[len(rows)-1].(map[string]any)["cells"].([]any)[1].(map[string]any)
	if wall["n"] != 0.0 || wall["median"] != nil || wall["delta"] != nil {
		t.Errorf("empty cell: %v", wall)
	}
	gc := rows[2].(map[string]any)["cells"].([]any)[1].(map[string]any)
	if gc["ci_high"] != nil { // infinite: too few samples
		t.Errorf("GC count cell: %v", gc)
	}
	d := gc["delta"].(map[string]any)
	if d["significant"] != false || d["text"] != "~ (p=0.100 n=3)" || math.Abs(d["percent"].(float64)+73.1707) > 0.01 {
		t.Errorf("GC count delta: %v", d)
	}
}
