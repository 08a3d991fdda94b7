package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// tuningSection shows the pacer model of one process and what it predicts
// for other GOGC and GOMEMLIMIT settings: the section of gcdoctor whatif,
// and doctor's tuning advice. Nil when no model was asked for.
func tuningSection(d *diagnose.Diagnosis) *Section {
	tu := d.Tuning
	if tu == nil {
		return nil
	}
	sec := &Section{ID: "tuning", Title: "Tuning (pacer model)", Source: tu.Segment.Input}
	sec.JSON = []Field{{"tuning", tuningJSON(tu)}}
	m := tu.Model
	if m == nil {
		sec.Intro = "no model: " + tu.Err
		return sec
	}
	s := tu.Segment
	sec.Intro = fmt.Sprintf("model of %s (lines %s, %d cycles over %s s, %d P) at %s: live heap %s MiB on average, allocating %s MiB/s, GC CPU per cycle %s (R² %s)",
		processName(s), lineSpan(s), m.Cycles, fmtNum(m.WallS), m.Procs, m.Observed, fmtNum(m.LiveMeanMiB), fmtNum(m.AllocRateMiBPerS), m.CostString(), fmtNum(m.CostR2))
	if r := tu.Recommendation; r != nil {
		sec.Rows = append(sec.Rows, Row{"advice", fmt.Sprintf("%s for a budget of %s (%s): %s", r.Setting, pacer.FormatSize(r.Budget), tu.BudgetSource, r.Gain)})
		for _, why := range r.Reasons {
			sec.Rows = append(sec.Rows, Row{"because", why})
		}
	} else if len(tu.Alternatives) > 0 && tu.BudgetSource == "" {
		sec.Rows = append(sec.Rows, Row{"budget", "none known: --budget SIZE (or a bundle's cgroup limit) gives a recommended GOGC and GOMEMLIMIT"})
	}
	t := &Table{Columns: []Column{{Head: "GOGC", Num: true}, {Head: "GOMEMLIMIT", Num: true}, {Head: "GC cycles", Num: true},
		{Head: "GC CPU", Num: true}, {Head: "peak heap", Num: true}, {Head: "risk"}, {Head: ""}}}
	row := func(p pacer.Prediction, role string) {
		limit := "-"
		if p.Setting.MemoryLimit > 0 {
			limit = pacer.GOMEMLIMIT(p.Setting.MemoryLimit)
		}
		t.Rows = append(t.Rows, TableRow{Cells: []string{gogcStr(p.Setting.GOGC), limit, countRange(p.Cycles),
			rangeStr(p.GCCPUFraction, 100, " %"), rangeStr(p.PeakHeap, 1.0/(1<<20), " MiB"), p.Risk.String(), role}})
	}
	row(tu.Baseline, "now")
	for _, p := range tu.Alternatives {
		row(p, "")
	}
	if r := tu.Recommendation; r != nil {
		row(r.Expected, "advised")
	}
	t.Footer = append(t.Footer, "Each figure is the model's value ± half its likely range.")
	sec.Tables = append(sec.Tables, t)
	sec.Caveats = tuningCaveats(tu)
	return sec
}

// tuningCaveats are the model's warnings and the reasons behind the
// predictions' risks and caveats. Settings near a limit tend to share one
// reason: each is said once, naming the setting only when it does not
// apply to all of them.
func tuningCaveats(tu *diagnose.TuningEvidence) []string {
	preds := append([]pacer.Prediction{tu.Baseline}, tu.Alternatives...)
	if r := tu.Recommendation; r != nil {
		preds = append(preds, r.Expected)
	}
	times := map[string]int{}
	for _, p := range preds {
		for _, s := range append([]string{p.RiskReason}, p.Caveats...) {
			times[reasonKey(s)]++
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range preds {
		for _, s := range append([]string{p.RiskReason}, p.Caveats...) {
			key := reasonKey(s)
			if s == "" || seen[key] {
				continue
			}
			seen[key] = true
			if times[key] < len(preds) {
				s = p.Setting.String() + ": " + s
			}
			out = append(out, s)
		}
	}
	more := tu.Model.Caveats
	if r := tu.Recommendation; r != nil {
		more = append(append([]string(nil), more...), r.Caveats...)
	}
	for _, s := range more {
		if key := reasonKey(s); !seen[key] {
			seen[key] = true
			out = append(out, s)
		}
	}
	return out
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

type jsonRange struct {
	Value num `json:"value"`
	Low   num `json:"low"`
	High  num `json:"high"`
}

func rangeJSON(r pacer.Range) jsonRange { return jsonRange{num(r.Value), num(r.Low), num(r.High)} }

// jsonTuning is the pacer model's part of the document, for doctor and
// whatif alike.
type jsonTuning struct {
	Input          string              `json:"input"`
	Segment        int                 `json:"segment"`
	Summary        string              `json:"summary,omitempty"`
	Error          string              `json:"error,omitempty"`
	Model          *jsonModel          `json:"model,omitempty"`
	Predictions    []jsonPrediction    `json:"predictions"`
	Recommendation *jsonRecommendation `json:"recommendation,omitempty"`
}

type jsonModel struct {
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
	Caveats          []string `json:"caveats"`
}

type jsonPrediction struct {
	Role          string    `json:"role"` // "observed", "predicted" or "recommended"
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

type jsonRecommendation struct {
	GOGC          int      `json:"gogc"`
	MemlimitBytes int64    `json:"memlimit_bytes"`
	GOMEMLIMIT    string   `json:"gomemlimit"`
	BudgetBytes   int64    `json:"budget_bytes"`
	BudgetSource  string   `json:"budget_source"`
	Gain          string   `json:"gain"`
	Reasons       []string `json:"reasons"`
	Caveats       []string `json:"caveats"`
}

func predictionJSON(p pacer.Prediction, role string) jsonPrediction {
	return jsonPrediction{Role: role, GOGC: p.Setting.GOGC, MemlimitBytes: p.Setting.MemoryLimit,
		GCCount: num(p.Cycles.Value), GCCountRange: rangeJSON(p.Cycles),
		PeakHeapBytes: num(p.PeakHeap.Value), PeakHeapRange: rangeJSON(p.PeakHeap),
		GCCPUFraction: num(p.GCCPUFraction.Value), GCCPURange: rangeJSON(p.GCCPUFraction),
		RSSBytes: num(p.RSS.Value), Risk: p.Risk.String(), RiskReason: p.RiskReason, Caveats: nonNil(p.Caveats)}
}

func tuningJSON(tu *diagnose.TuningEvidence) *jsonTuning {
	jt := &jsonTuning{Input: tu.Segment.Input, Segment: tu.Segment.Index, Error: tu.Err, Predictions: []jsonPrediction{}}
	m := tu.Model
	if m == nil {
		return jt
	}
	jt.Summary = tu.Describe()
	jt.Model = &jsonModel{Cycles: m.Cycles, ForcedCycles: m.Forced, WallS: num(m.WallS), Procs: m.Procs,
		GoMinor: m.GoMinor, ObservedGOGC: m.Observed.GOGC, ObservedMemlimit: m.Observed.MemoryLimit,
		LiveMeanMB: num(m.LiveMeanMiB), AllocRateMBPerS: num(m.AllocRateMiBPerS), CostFixedMS: num(m.CostFixedMS),
		CostPerMBMS: num(m.CostPerMiBMS), CostR2: num(m.CostR2), RunwayRatio: num(m.RunwayRatio), Caveats: nonNil(m.Caveats)}
	jt.Predictions = append(jt.Predictions, predictionJSON(tu.Baseline, "observed"))
	for _, p := range tu.Alternatives {
		jt.Predictions = append(jt.Predictions, predictionJSON(p, "predicted"))
	}
	if r := tu.Recommendation; r != nil {
		jt.Predictions = append(jt.Predictions, predictionJSON(r.Expected, "recommended"))
		jt.Recommendation = &jsonRecommendation{GOGC: r.Setting.GOGC, MemlimitBytes: r.Setting.MemoryLimit,
			GOMEMLIMIT: pacer.GOMEMLIMIT(r.Setting.MemoryLimit), BudgetBytes: r.Budget, BudgetSource: tu.BudgetSource,
			Gain: r.Gain, Reasons: nonNil(r.Reasons), Caveats: nonNil(r.Caveats)}
	}
	return jt
}

func gogcStr(g int) string {
	if g < 0 {
		return "off"
	}
	return fmt.Sprint(g)
}
