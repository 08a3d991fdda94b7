package report

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// maxLintRows bounds the source-check rows the text report lists; JSON has
// them all.
const maxLintRows = 15

// lintSection lists the source checks' findings, heaviest line first when
// a profile weighed them.
func (t *textWriter) lintSection(d *diagnose.Diagnosis) {
	l := d.Lint
	if l == nil {
		return
	}
	t.printf("\n%s", t.style(ansiBold, "Source checks"))
	weighed := len(d.LintRanked) > 0 && d.LintRanked[0].Weighed
	sub := fmt.Sprintf("gcdoctor lint %s, %s", strings.Join(l.Patterns, " "), plural(len(d.LintRanked), "finding"))
	if weighed {
		sub += ", ranked by the bytes their line allocates"
	}
	t.printf("  %s\n", t.style(ansiDim, sub))
	if len(d.LintRanked) == 0 {
		t.wrap("  ", "  ", "No finding.")
		return
	}
	if weighed {
		t.printf("  %9s %6s  %s\n", "alloc", "share", "finding")
	}
	for i, f := range d.LintRanked {
		if i == maxLintRows {
			t.wrap("  ", "  ", t.style(ansiDim, fmt.Sprintf("… and %d more (--json lists them all).", len(d.LintRanked)-i)))
			break
		}
		where := fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
		fix := ""
		if f.Fixable {
			fix = " (fix)"
		}
		text := fmt.Sprintf("%s %s%s: %s", where, f.Rule, fix, f.Message)
		if !weighed {
			t.wrap("  ", "    ", text)
			continue
		}
		alloc, share := "–", "cold"
		if f.Bytes > 0 {
			alloc, share = fmtBytes(f.Bytes), fmt.Sprintf("%5.1f%%", f.Share*100)
		}
		t.wrap(fmt.Sprintf("  %9s %6s  ", alloc, share), strings.Repeat(" ", 20), text)
	}
	if weighed {
		t.wrap("  ", "  ", t.style(ansiDim, "cold: the profile saw no allocation at the line under this load."))
	}
	if len(l.Broken) > 0 {
		t.wrap("  ", "  ", t.style(ansiDim, fmt.Sprintf("%s did not compile and were checked as far as possible: %s", plural(len(l.Broken), "package"), strings.Join(l.Broken, ", "))))
	}
}

// tuningSection shows the pacer model's predictions.
func (t *textWriter) tuningSection(d *diagnose.Diagnosis) {
	tu := d.Tuning
	if tu == nil {
		return
	}
	t.printf("\n%s\n", t.style(ansiBold, "Tuning (pacer model)"))
	if tu.Model == nil {
		t.wrap("  ", "  ", "No model: "+tu.Err)
		return
	}
	t.wrap("  ", "  ", t.style(ansiDim, tu.Describe()))
	t.printf("  %-32s %10s %11s %9s\n", "setting", "GC cycles", "GC CPU", "peak heap")
	row := func(label string, p pacer.Prediction) {
		t.printf("  %-32s %10.0f %10.1f%% %9s\n", truncate(label, 32), p.Cycles.Value, p.GCCPUFraction.Value*100, fmtBytes(int64(p.PeakHeap.Value)))
	}
	row(tu.Model.Observed.String()+" (now)", tu.Baseline)
	for _, p := range tu.Alternatives {
		row(p.Setting.String(), p)
	}
	if r := tu.Recommendation; r != nil {
		row(r.Setting.String()+" (advised)", r.Expected)
		t.wrap("  ", "  ", fmt.Sprintf("For a %s budget (%s): %s.", pacer.FormatSize(r.Budget), tu.BudgetSource, r.Gain))
	} else {
		t.wrap("  ", "  ", t.style(ansiDim, "No memory budget known: --budget SIZE (or a bundle's cgroup limit) gives a recommended GOGC and GOMEMLIMIT."))
	}
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
}

func lintJSON(d *diagnose.Diagnosis) *jsonLint {
	if d.Lint == nil {
		return nil
	}
	jl := &jsonLint{Patterns: nonNil(d.Lint.Patterns), Findings: []jsonLintFinding{}, Broken: nonNil(d.Lint.Broken)}
	for i, f := range d.LintRanked {
		jl.Weighed = f.Weighed
		jl.Findings = append(jl.Findings, jsonLintFinding{Rank: i + 1, Rule: f.Rule, File: f.File, Line: f.Line, Column: f.Column,
			Message: f.Message, Fixable: f.Fixable, Bytes: f.Bytes, Share: num(f.Share), HeapRank: f.HeapRank})
	}
	return jl
}

// jsonTuning is the pacer model's part of a diagnosis.
type jsonTuning struct {
	Model          string               `json:"model,omitempty"`
	Error          string               `json:"error,omitempty"`
	Segment        int                  `json:"segment"`
	Predictions    []jsonTunePrediction `json:"predictions"`
	Recommendation *jsonTuneAdvice      `json:"recommendation,omitempty"`
}

type jsonTunePrediction struct {
	GOGC          int    `json:"gogc"`
	MemlimitBytes int64  `json:"memlimit_bytes"`
	Role          string `json:"role"` // "observed", "alternative" or "recommended"
	GCCount       num    `json:"gc_count"`
	GCCPUFraction num    `json:"gc_cpu_fraction"`
	PeakHeapBytes num    `json:"peak_heap_bytes"`
	RSSBytes      num    `json:"rss_bytes"`
	Risk          string `json:"death_spiral_risk"`
}

type jsonTuneAdvice struct {
	GOGC          int      `json:"gogc"`
	MemlimitBytes int64    `json:"memlimit_bytes"`
	BudgetBytes   int64    `json:"budget_bytes"`
	BudgetSource  string   `json:"budget_source"`
	Gain          string   `json:"gain"`
	Reasons       []string `json:"reasons"`
	Warnings      []string `json:"warnings"`
}

func tunePredictionJSON(p pacer.Prediction, role string) jsonTunePrediction {
	return jsonTunePrediction{GOGC: p.Setting.GOGC, MemlimitBytes: p.Setting.MemoryLimit, Role: role,
		GCCount: num(p.Cycles.Value), GCCPUFraction: num(p.GCCPUFraction.Value), PeakHeapBytes: num(p.PeakHeap.Value),
		RSSBytes: num(p.RSS.Value), Risk: p.Risk.String()}
}

func tuningJSON(d *diagnose.Diagnosis) *jsonTuning {
	tu := d.Tuning
	if tu == nil {
		return nil
	}
	jt := &jsonTuning{Error: tu.Err, Segment: tu.Segment.Index, Predictions: []jsonTunePrediction{}}
	if tu.Model == nil {
		return jt
	}
	jt.Model = tu.Describe()
	jt.Predictions = append(jt.Predictions, tunePredictionJSON(tu.Baseline, "observed"))
	for _, p := range tu.Alternatives {
		jt.Predictions = append(jt.Predictions, tunePredictionJSON(p, "alternative"))
	}
	if r := tu.Recommendation; r != nil {
		jt.Predictions = append(jt.Predictions, tunePredictionJSON(r.Expected, "recommended"))
		jt.Recommendation = &jsonTuneAdvice{GOGC: r.Setting.GOGC, MemlimitBytes: r.Setting.MemoryLimit, BudgetBytes: r.Budget,
			BudgetSource: tu.BudgetSource, Gain: r.Gain, Reasons: nonNil(r.Reasons), Warnings: nonNil(r.Warnings)}
	}
	return jt
}

// crossSection shows what the gctrace and the execution trace agree on.
func (t *textWriter) crossSection(d *diagnose.Diagnosis) {
	if len(d.CrossChecks) == 0 {
		return
	}
	t.printf("\n%s  %s\n", t.style(ansiBold, "Cross-checks"), t.style(ansiDim, "gctrace against the execution trace"))
	for _, c := range d.CrossChecks {
		verdict := t.style(ansiDim, "agree")
		if !c.Agree {
			verdict = t.style(ansiYellow, "DISAGREE")
		}
		// The compared figures are counts.
		num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		g := num(c.GCTraceLo)
		if c.GCTraceHi != c.GCTraceLo {
			g += "–" + num(c.GCTraceHi)
		}
		t.wrap(fmt.Sprintf("  %-22s %s  ", truncate(c.What, 22), verdict), strings.Repeat(" ", 4),
			fmt.Sprintf("gctrace %s %s, trace %s %s", g, c.Unit, num(c.TraceValue), c.Unit))
		if !c.Agree {
			t.wrap("    ", "    ", t.style(ansiDim, c.Note))
		}
	}
}

// jsonCross is one cross-check of the gctrace against the trace.
type jsonCross struct {
	What    string `json:"what"`
	GCTrace string `json:"gctrace"`
	Trace   string `json:"trace"`
	Agree   bool   `json:"agree"`
	Note    string `json:"note"`
}

func crossJSON(d *diagnose.Diagnosis) []jsonCross {
	var out []jsonCross
	for _, c := range d.CrossChecks {
		out = append(out, jsonCross{What: c.What, GCTrace: c.GCTrace, Trace: c.Trace, Agree: c.Agree, Note: c.Note})
	}
	return out
}
