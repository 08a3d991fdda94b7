package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// WhatIf is a pacer model of one process and its predictions for other
// GOGC and GOMEMLIMIT settings.
type WhatIf struct {
	Input          string
	Segment        *gctrace.Segment
	Model          *pacer.Model
	Predictions    []pacer.Prediction
	Recommendation *pacer.Recommendation // nil without a memory budget
}

type jsonRange struct {
	Value num `json:"value"`
	Low   num `json:"low"`
	High  num `json:"high"`
}

func rangeJSON(r pacer.Range) jsonRange { return jsonRange{num(r.Value), num(r.Low), num(r.High)} }

type jsonPrediction struct {
	GOGC          int       `json:"gogc"`
	MemlimitBytes int64     `json:"memlimit_bytes"`
	GCCount       num       `json:"gc_count"`
	GCCountRange  jsonRange `json:"gc_count_range"`
	PeakHeapBytes num       `json:"peak_heap_bytes"`
	PeakHeapRange jsonRange `json:"peak_heap_range"`
	GCCPUFraction num       `json:"gc_cpu_fraction"`
	GCCPURange    jsonRange `json:"gc_cpu_fraction_range"`
	RSSBytes      num       `json:"rss_bytes"`
	Risk          string    `json:"death_spiral_risk"`
	RiskReason    string    `json:"risk_reason,omitempty"`
	Caveats       []string  `json:"caveats"`
}

type jsonModel struct {
	Segment          int      `json:"segment"`
	Cycles           int      `json:"cycles"`
	ForcedCycles     int      `json:"forced_cycles"`
	WallS            num      `json:"wall_s"`
	Procs            int      `json:"procs"`
	GoMinor          int      `json:"go_minor"`
	ObservedGOGC     int      `json:"observed_gogc"`
	ObservedMemlimit int64    `json:"observed_memlimit_bytes"`
	LiveMeanMB       num      `json:"live_mean_mb"`
	AllocRateMBPerS  num      `json:"alloc_mb_per_s"`
	CostFixedMS      num      `json:"cost_fixed_ms"`
	CostPerMBMS      num      `json:"cost_per_mb_ms"`
	CostR2           num      `json:"cost_r2"`
	RunwayRatio      num      `json:"runway_ratio"`
	Warnings         []string `json:"warnings"`
}

type jsonRecommendation struct {
	GOGC          int      `json:"gogc"`
	MemlimitBytes int64    `json:"memlimit_bytes"`
	GOMEMLIMIT    string   `json:"gomemlimit"`
	BudgetBytes   int64    `json:"budget_bytes"`
	Gain          string   `json:"gain"`
	Reasons       []string `json:"reasons"`
	Warnings      []string `json:"warnings"`
}

// WhatIfJSON writes the predictions as one JSON document (docs/json.md).
func WhatIfJSON(w io.Writer, wi *WhatIf, toolVersion string) error {
	m := wi.Model
	doc := struct {
		SchemaVersion  int                 `json:"schema_version"`
		Tool           string              `json:"tool"`
		ToolVersion    string              `json:"tool_version,omitempty"`
		Input          string              `json:"input"`
		Model          jsonModel           `json:"model"`
		Predictions    []jsonPrediction    `json:"predictions"`
		Recommendation *jsonRecommendation `json:"recommendation,omitempty"`
	}{SchemaVersion: SchemaVersion, Tool: "gcdoctor", ToolVersion: toolVersion, Input: wi.Input, Predictions: []jsonPrediction{}}
	doc.Model = jsonModel{Segment: wi.Segment.Index, Cycles: m.Cycles, ForcedCycles: m.Forced, WallS: num(m.WallS), Procs: m.Procs,
		GoMinor: m.GoMinor, ObservedGOGC: m.Observed.GOGC, ObservedMemlimit: m.Observed.MemoryLimit,
		LiveMeanMB: num(m.LiveMeanMiB), AllocRateMBPerS: num(m.AllocRateMiBPerS), CostFixedMS: num(m.CostFixedMS),
		CostPerMBMS: num(m.CostPerMiBMS), CostR2: num(m.CostR2), RunwayRatio: num(m.RunwayRatio), Warnings: nonNil(m.Warnings)}
	for _, p := range wi.Predictions {
		doc.Predictions = append(doc.Predictions, jsonPrediction{
			GOGC: p.Setting.GOGC, MemlimitBytes: p.Setting.MemoryLimit,
			GCCount: num(p.Cycles.Value), GCCountRange: rangeJSON(p.Cycles),
			PeakHeapBytes: num(p.PeakHeap.Value), PeakHeapRange: rangeJSON(p.PeakHeap),
			GCCPUFraction: num(p.GCCPUFraction.Value), GCCPURange: rangeJSON(p.GCCPUFraction),
			RSSBytes: num(p.RSS.Value), Risk: p.Risk.String(), RiskReason: p.RiskReason, Caveats: nonNil(p.Caveats),
		})
	}
	if r := wi.Recommendation; r != nil {
		doc.Recommendation = &jsonRecommendation{GOGC: r.Setting.GOGC, MemlimitBytes: r.Setting.MemoryLimit,
			GOMEMLIMIT: pacer.GOMEMLIMIT(r.Setting.MemoryLimit), BudgetBytes: r.Budget, Gain: r.Gain,
			Reasons: nonNil(r.Reasons), Warnings: nonNil(r.Warnings)}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// WhatIfText writes the model and the predictions as a table.
func WhatIfText(w io.Writer, wi *WhatIf, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	t := &textWriter{w: w, opt: opt}
	m := wi.Model
	s := wi.Segment
	t.printf("%s %s\n", t.style(ansiBold, "gcdoctor whatif:"), truncateLeft(wi.Input, t.opt.Width-18))
	t.wrap("  ", "  ", fmt.Sprintf("model of %s (lines %s, %d cycles over %s s, %d P), recorded at %s",
		processName(s), lineSpan(s), m.Cycles, fmtNum(m.WallS), m.Procs, m.Observed))
	t.wrap("  ", "  ", fmt.Sprintf("live heap %s MiB on average, allocating %s MiB/s; GC CPU per cycle %s (R² %s)",
		fmtNum(m.LiveMeanMiB), fmtNum(m.AllocRateMiBPerS), m.CostString(), fmtNum(m.CostR2)))
	t.printf("\n  %6s %10s %13s %13s %14s %7s\n", "GOGC", "GOMEMLIMIT", "GC cycles", "GC CPU", "peak heap", "risk")
	for _, p := range wi.Predictions {
		limit := "-"
		if p.Setting.MemoryLimit > 0 {
			limit = pacer.GOMEMLIMIT(p.Setting.MemoryLimit)
		}
		t.printf("  %6s %10s %13s %13s %14s %7s\n", gogcStr(p.Setting.GOGC), limit,
			countRange(p.Cycles), rangeStr(p.GCCPUFraction, 100, " %"), rangeStr(p.PeakHeap, 1.0/(1<<20), " MiB"), p.Risk)
	}
	t.printf("\n")
	t.wrap("  ", "  ", t.style(ansiDim, "Each figure is the model's value ± half its likely range, for the same work as the log (the same allocation and live heap); the wall time is assumed unchanged."))
	// Settings near a limit tend to share one reason: say each once, and
	// without naming a setting when it applies to all of them.
	times := map[string]int{}
	for _, p := range wi.Predictions {
		for _, s := range append([]string{p.RiskReason}, p.Caveats...) {
			times[reasonKey(s)]++
		}
	}
	seen := map[string]bool{}
	for _, p := range wi.Predictions {
		for _, s := range append([]string{p.RiskReason}, p.Caveats...) {
			key := reasonKey(s)
			if s == "" || seen[key] {
				continue
			}
			seen[key] = true
			if times[key] < len(wi.Predictions) {
				s = p.Setting.String() + ": " + s
			}
			t.footnote(s)
		}
	}
	for _, warn := range m.Warnings {
		t.footnote(warn)
	}
	if r := wi.Recommendation; r != nil {
		t.printf("\n%s\n", t.style(ansiBold, "Recommendation"))
		t.wrap("  ", "  ", fmt.Sprintf("GOGC=%s GOMEMLIMIT=%s for a budget of %s: %s", gogcStr(r.Setting.GOGC), pacer.GOMEMLIMIT(r.Setting.MemoryLimit), pacer.FormatSize(r.Budget), r.Gain))
		for _, s := range r.Reasons {
			t.wrap("  - ", "    ", s)
		}
		for _, s := range r.Warnings {
			t.wrap("  ! ", "    ", s)
		}
		t.wrap("  ", "  ", "Verify: run it with these settings (gcdoctor run, or gcdoctor sweep when available) and compare the GC count and peak RSS with the prediction.")
	}
	if len(t.notes) > 0 {
		t.printf("\n%s\n", t.style(ansiBold, "Notes"))
		for i, n := range t.notes {
			t.wrap("  "+superscript(i+1)+" ", "    ", n)
		}
	}
	return t.err
}

func gogcStr(g int) string {
	if g < 0 {
		return "off"
	}
	return fmt.Sprint(g)
}

func processName(s *gctrace.Segment) string {
	switch {
	case s.Label != "":
		return "the process after " + s.Label
	case s.Process != "":
		return s.Process
	}
	return "the program"
}

// reasonKey reduces a sentence to its words, so that reasons differing only
// in their figures count as one.
func reasonKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < '0' || r > '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// countRange prints a count and its half-range as integers: "70±6".
func countRange(r pacer.Range) string {
	if !gctrace.Valid(r.Value) {
		return "n/a"
	}
	s := fmt.Sprintf("%.0f", r.Value)
	if half := (r.High - r.Low) / 2; gctrace.Valid(half) && half >= 0.5 {
		s += fmt.Sprintf("±%.0f", half)
	}
	return s
}

// rangeStr prints a value and its half-range: "120±8".
func rangeStr(r pacer.Range, scale float64, unit string) string {
	v := r.Value * scale
	if math.IsInf(v, 0) {
		return "∞"
	}
	if !gctrace.Valid(v) {
		return "n/a"
	}
	half := (r.High - r.Low) / 2 * scale
	s := fmtNum(v)
	if gctrace.Valid(half) && half > 0 && !math.IsInf(half, 0) {
		s += "±" + fmtNum(half)
	}
	return s + unit
}
