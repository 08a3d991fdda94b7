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
		processName(s), lineSpan(s), m.Cycles, fmtNum(m.WallS), m.Procs, m.Observed, fmtNum(m.LiveMeanMiB), fmtNum(m.AllocRateMiBPerS), m.CostString(), r2Str(m.CostR2))
	if tu.Processes > 1 {
		sec.Rows = append(sec.Rows, Row{"process", tu.Which() + "; --segment N models another (below)"})
	}
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
	withheld := false
	row := func(p pacer.Prediction, role string) {
		withheld = withheld || !gctrace.Valid(p.Cycles.Low) || !gctrace.Valid(p.GCCPUFraction.Low)
		t.Rows = append(t.Rows, TableRow{Cells: []string{gogcStr(p.Setting.GOGC), limitStr(p.Setting), countRange(p.Cycles),
			rangeStr(p.GCCPUFraction, 100, " %"), rangeStr(p.PeakHeap, 1.0/(1<<20), " MiB"), p.Risk.String(), role}})
	}
	lg := loggedFigures(tu)
	t.Rows = append(t.Rows, TableRow{Cells: []string{gogcStr(m.Observed.GOGC), limitStr(m.Observed), fmt.Sprint(lg.cycles),
		rangeStr(pacer.Range{Value: lg.gcCPU, Low: lg.gcCPU, High: lg.gcCPU}, 100, " %"), fmt.Sprintf("%d MiB", lg.peakMiB), "", "logged"}})
	row(tu.Baseline, "now")
	for _, p := range tu.Alternatives {
		if p.Setting != m.Observed { // the "now" row has it
			row(p, "")
		}
	}
	if r := tu.Recommendation; r != nil {
		row(r.Expected, "advised")
	}
	t.Footer = append(t.Footer, "logged: what the log shows; now: the model's replay of the same setting. Each figure is the model's value ± half its likely range.")
	if withheld {
		t.Footer = append(t.Footer, "±?: the fit cannot give a range for this figure (the caveats say why).")
	}
	sec.Tables = append(sec.Tables, t)
	if ot := otherProcessTable(tu); ot != nil {
		sec.Tables = append(sec.Tables, ot)
	}
	sec.Caveats = tuningCaveats(tu)
	return sec
}

// logged are the figures of the modelled process as its log shows them,
// over the cycles the model saw: the measured side of the model's replay.
type logged struct {
	cycles  int
	gcCPU   float64 // fraction, as pacer.GCCPUFraction defines it
	peakMiB int64
}

func loggedFigures(tu *diagnose.TuningEvidence) logged {
	m := tu.Model
	return logged{cycles: m.Cycles, gcCPU: m.CPUShare(m.LoggedCPUMS()), peakMiB: tu.Segment.Summary.PeakHeapMB}
}

// otherProcessTable lists the busiest of the processes the model is not
// of: those --segment could model instead. Nil for a log of one process.
func otherProcessTable(tu *diagnose.TuningEvidence) *Table {
	if tu.Processes < 2 {
		return nil
	}
	t := &Table{Caption: "Other processes in the log, the busiest first (--segment N models one of them):",
		Columns: []Column{{Head: "#", Num: true}, {Head: "lines"}, {Head: "process", Flex: true},
			{Head: "cycles", Num: true}, {Head: "GC CPU", Num: true}, {Head: "GC CPU time", Num: true}}}
	for _, s := range tu.Others {
		t.Rows = append(t.Rows, TableRow{Cells: []string{fmt.Sprint(s.Index), lineSpan(s), processLabel(s), fmt.Sprint(s.Summary.Cycles),
			rangeStr(pacer.Range{Value: pacer.GCCPUFraction(&s.Summary)}, 100, " %"), rangeStr(pacer.Range{Value: s.Summary.GCCPUMS}, 1, " ms")}})
	}
	if more := tu.Processes - 1 - len(tu.Others); more > 0 {
		t.Footer = append(t.Footer, fmt.Sprintf("(%s with less GC work; gcdoctor gctrace lists them all)", countOf(more, "more process", "more processes")))
	}
	return t
}

// processLabel names a process in a table: its "# pkg" header, its log
// prefix, or "-".
func processLabel(s *gctrace.Segment) string {
	switch {
	case s.Label != "":
		return strings.TrimPrefix(s.Label, "# ")
	case s.Process != "":
		return s.Process
	}
	return "-"
}

func limitStr(s pacer.Setting) string {
	if s.MemoryLimit > 0 {
		return pacer.GOMEMLIMIT(s.MemoryLimit)
	}
	return "-"
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

// r2Str prints a goodness of fit to two decimals, as a share: more
// digits, or a rounding residue such as 1.6e-15, say nothing more.
func r2Str(r2 float64) string {
	if !gctrace.Valid(r2) {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", r2)
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

// countRange prints a count and its half-range as integers: "70±6", or
// "70±?" when the range was withheld (its ends NaN).
func countRange(r pacer.Range) string {
	if !gctrace.Valid(r.Value) {
		return "n/a"
	}
	s := fmt.Sprintf("%.0f", r.Value)
	if math.IsNaN(r.Low) || math.IsNaN(r.High) {
		return s + "±?"
	}
	if half := (r.High - r.Low) / 2; gctrace.Valid(half) && half >= 0.5 {
		s += fmt.Sprintf("±%.0f", half)
	}
	return s
}

// rangeStr prints a value and its half-range: "120±8", or "120±?" when the
// range was withheld (its ends NaN).
func rangeStr(r pacer.Range, scale float64, unit string) string {
	v := r.Value * scale
	if math.IsInf(v, 0) {
		return "∞"
	}
	if !gctrace.Valid(v) {
		return "n/a"
	}
	s := fmtNum(v)
	if math.IsNaN(r.Low) || math.IsNaN(r.High) {
		return s + "±?" + unit
	}
	half := (r.High - r.Low) / 2 * scale
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
	Input string `json:"input"`
	// Segment is the process modelled, SegmentChosen why: "busiest" or
	// "asked" (--segment).
	Segment        int                 `json:"segment"`
	SegmentChosen  string              `json:"segment_chosen"`
	Processes      int                 `json:"processes"`
	OtherSegments  []jsonProcess       `json:"other_segments"`
	OthersMore     int                 `json:"other_segments_more"`
	Summary        string              `json:"summary,omitempty"`
	Error          string              `json:"error,omitempty"`
	Model          *jsonModel          `json:"model,omitempty"`
	Logged         *jsonLogged         `json:"logged,omitempty"`
	Predictions    []jsonPrediction    `json:"predictions"`
	Recommendation *jsonRecommendation `json:"recommendation,omitempty"`
}

// jsonProcess is a process the model could be fitted to instead.
type jsonProcess struct {
	Index         int    `json:"index"`
	Label         string `json:"label,omitempty"`
	Process       string `json:"process,omitempty"`
	FirstLine     int    `json:"first_line"`
	LastLine      int    `json:"last_line"`
	Cycles        int    `json:"cycles"`
	GCCPUFraction num    `json:"gc_cpu_fraction"`
	GCCPUMS       num    `json:"gc_cpu_ms"`
}

// jsonLogged is what the log shows at the setting it was recorded with,
// beside the model's replay of it (the prediction of role "observed").
type jsonLogged struct {
	GCCount       int `json:"gc_count"`
	GCCPUFraction num `json:"gc_cpu_fraction"`
	PeakHeapBytes num `json:"peak_heap_bytes"`
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
	CostScatter      num      `json:"cost_scatter"`
	Reproduces       bool     `json:"reproduces_log"`
	ReplayGCCount    num      `json:"replay_gc_count"`
	ReplayGCCPUMS    num      `json:"replay_gc_cpu_ms"`
	LoggedGCCPUMS    num      `json:"logged_gc_cpu_ms"`
	CPURangeWithheld string   `json:"gc_cpu_range_withheld,omitempty"`
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
	jt := &jsonTuning{Input: tu.Segment.Input, Segment: tu.Segment.Index, SegmentChosen: "busiest", Processes: tu.Processes,
		OtherSegments: []jsonProcess{}, Error: tu.Err, Predictions: []jsonPrediction{}}
	if tu.Asked {
		jt.SegmentChosen = "asked"
	}
	for _, s := range tu.Others {
		jt.OtherSegments = append(jt.OtherSegments, jsonProcess{Index: s.Index, Label: s.Label, Process: s.Process,
			FirstLine: s.FirstLine, LastLine: s.LastLine, Cycles: s.Summary.Cycles,
			GCCPUFraction: num(pacer.GCCPUFraction(&s.Summary)), GCCPUMS: num(s.Summary.GCCPUMS)})
	}
	jt.OthersMore = max(tu.Processes-1-len(tu.Others), 0)
	m := tu.Model
	if m == nil {
		return jt
	}
	jt.Summary = tu.Describe()
	jt.Model = &jsonModel{Cycles: m.Cycles, ForcedCycles: m.Forced, WallS: num(m.WallS), Procs: m.Procs,
		GoMinor: m.GoMinor, ObservedGOGC: m.Observed.GOGC, ObservedMemlimit: m.Observed.MemoryLimit,
		LiveMeanMB: num(m.LiveMeanMiB), AllocRateMBPerS: num(m.AllocRateMiBPerS), CostFixedMS: num(m.CostFixedMS),
		CostPerMBMS: num(m.CostPerMiBMS), CostR2: num(m.CostR2), RunwayRatio: num(m.RunwayRatio),
		CostScatter: num(m.CostScatter), Reproduces: m.Reproduces(), ReplayGCCount: num(m.ReplayCycles),
		ReplayGCCPUMS: num(m.ReplayCPUMS), LoggedGCCPUMS: num(m.LoggedCPUMS()), CPURangeWithheld: m.GCCPURangeWithheld(),
		Caveats: nonNil(m.Caveats)}
	lg := loggedFigures(tu)
	jt.Logged = &jsonLogged{GCCount: lg.cycles, GCCPUFraction: num(lg.gcCPU), PeakHeapBytes: num(float64(lg.peakMiB) * (1 << 20))}
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
