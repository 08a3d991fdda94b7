package diagnose

import (
	"fmt"
	"strings"

	"github.com/gcdoctor/gcdoctor/pacer"
)

// Thresholds for tuning advice: a setting is worth changing when the model
// predicts GC CPU falls by at least a quarter and by at least one point of
// the CPU, or, with no budget to spend, when GC CPU is at least 5% now.
const (
	tuneMinRelGain = 0.25
	tuneMinAbsGain = 0.01
	tuneMinGCCPU   = 0.05
)

func init() {
	register(&Rule{
		ID: "tune-gc", Title: "A GOGC/GOMEMLIMIT setting would cut GC CPU", Severity: Info, Rank: 95,
		Evidence: "gctrace (pacer model), memory budget",
		Rationale: `GOGC trades memory for GC CPU: the heap goal is the live heap plus
GOGC% of it, so doubling GOGC about halves the number of cycles and doubles
the heap's headroom. GOMEMLIMIT caps that trade so that a high GOGC cannot
take the program past its memory budget. The pacer model, fitted to the
program's own cycles, predicts what each setting does before it is tried.
Tuning comes after the code fixes: less garbage needs less tuning, and a
model fitted to the fixed program predicts differently.`,
		Detection: `The pacer model is fitted to the process with the most GC CPU time. With a
memory budget (--budget or the cgroup memory limit) it recommends GOGC and
GOMEMLIMIT (gcdoctor whatif --budget); the rule fires when that setting's
predicted GC CPU is at least 25% and 1 point of the CPU below the observed
one. Without a budget it fires when GC CPU is at least 5% and GOGC 200, 400
or 800 would cut it by at least 25%, giving the cost in peak heap of each.
A model that does not give back its own log when it replays the recorded
setting (a program that sets its own GOGC, as the Go compiler does) gives
no advice.`,
		Remedy: `Fix the allocation sites first and record a new log. Then set the
recommended GOGC and GOMEMLIMIT in the program's environment, or with
debug.SetGCPercent and debug.SetMemoryLimit at start-up.`,
		Verify: `gcdoctor sweep --gogc OLD,NEW --memlimit LIMIT --count 5 -- CMD runs the
program under both settings and says whether GC CPU, wall time and peak RSS
changed significantly.`,
		Versions: `GOMEMLIMIT needs Go 1.19; the heap goal counts stacks and globals since
Go 1.18, and the model follows the program's version.`,
		checkAll: func(c *evidenceView) []*Finding {
			t := c.tuning
			if t == nil || t.Model == nil || !t.Model.Reproduces() {
				// A model that does not give back its own log (a program
				// that sets its own GOGC) has no advice to give.
				return nil
			}
			if f := tuneFinding(c, t); f != nil {
				return []*Finding{f}
			}
			return nil
		},
	})
}

func tuneFinding(c *evidenceView, t *TuningEvidence) *Finding {
	base := t.Baseline
	b := base.GCCPUFraction.Value
	seg := t.Segment
	where := []Location{{File: seg.Input, Line: seg.FirstLine, EndLine: seg.LastLine}}
	caveats := []string{
		"Predicted for the program as it is now, for the same work: after the code fixes it allocates less, so record a new log and predict again (gcdoctor whatif).",
		fmt.Sprintf("The model: %s", t.Describe()),
	}
	if t.Processes > 1 {
		caveats = append(caveats, fmt.Sprintf("The model is of process %s; gcdoctor whatif --segment N models another.", t.Which()))
	}
	if why := t.Model.GCCPURangeWithheld(); why != "" {
		caveats = append(caveats, strings.ToUpper(why[:1])+why[1:]+": the GC CPU figures are the model's best estimate, without a likely range.")
	}
	if why := t.Model.GCCPURangeWide(); why != "" {
		caveats = append(caveats, strings.ToUpper(why[:1])+why[1:]+".")
	}
	// sweep is the check command: the program run under both settings
	// when it runs to its end; a server, stopped by hand, once with the
	// new setting under the same load.
	sweep := func(s pacer.Setting) string {
		rc := &c.in.Recheck
		run := c.in.Run
		switch {
		case rc.Rerun != "":
			return s.String() + " " + rc.Rerun
		case run == nil || len(run.Command) == 0:
			return ""
		case run.stopped():
			return c.rerunCommand(s.String())
		}
		v := fmt.Sprintf("%s sweep --gogc %s,%s", rc.tool(), gogcArg(t.Model.Observed.GOGC), gogcArg(s.GOGC))
		if s.MemoryLimit > 0 {
			v += " --memlimit " + pacer.GOMEMLIMIT(s.MemoryLimit)
		}
		return v + " --count 5 -- " + shellJoin(run.Command)
	}
	verify := func(s pacer.Setting) string {
		return fmt.Sprintf("Run the program under %s and under the current setting, several times each, and compare: GC CPU and wall time should improve significantly, peak RSS stay within the budget.", s)
	}
	if r := t.Recommendation; r != nil {
		e := r.Expected.GCCPUFraction.Value
		if !(b-e >= tuneMinAbsGain && e <= b*(1-tuneMinRelGain)) {
			return nil
		}
		f := &Finding{Severity: Info, score: b - e, Where: where, Caveats: caveats}
		f.Message = fmt.Sprintf("With %s the pacer model predicts %s (a %s budget, from %s).", r.Setting, r.Gain, pacer.FormatSize(r.Budget), t.BudgetSource)
		f.Evidence = []Evidence{
			{Label: "GC CPU now (model)", Value: b * 100, Unit: "%", Source: seg.Input},
			{Label: "GC CPU predicted", Value: e * 100, Unit: "%", Source: seg.Input},
			{Label: "peak heap now (model)", Value: base.PeakHeap.Value / (1 << 20), Unit: "MiB", Source: seg.Input},
			{Label: "peak heap predicted", Value: r.Expected.PeakHeap.Value / (1 << 20), Unit: "MiB", Source: seg.Input},
		}
		f.Remedy = fmt.Sprintf("After the code fixes, run with %s (or debug.SetGCPercent and debug.SetMemoryLimit at start-up). %s.", r.Setting, strings.Join(r.Reasons, "; "))
		f.Caveats = append(f.Caveats, r.Caveats...)
		f.Verify, f.Command = verify(r.Setting), sweep(r.Setting)
		return f
	}
	if b < tuneMinGCCPU {
		return nil
	}
	var parts []string
	var best *pacer.Prediction
	for i := range t.Alternatives {
		p := &t.Alternatives[i]
		e := p.GCCPUFraction.Value
		if e > b*(1-tuneMinRelGain) {
			continue
		}
		parts = append(parts, fmt.Sprintf("GOGC=%s: GC CPU %s, peak heap %.0f MiB", gogcArg(p.Setting.GOGC), pct(e), p.PeakHeap.Value/(1<<20)))
		if best == nil {
			best = p
		}
	}
	if best == nil {
		return nil
	}
	f := &Finding{Severity: Info, score: b - best.GCCPUFraction.Value, Where: where, Caveats: caveats}
	f.Message = fmt.Sprintf("GC CPU is %s at %s, with a peak heap of %.0f MiB. The pacer model predicts %s.",
		pct(b), t.Model.Observed, base.PeakHeap.Value/(1<<20), strings.Join(parts, "; "))
	f.Evidence = []Evidence{
		{Label: "GC CPU now (model)", Value: b * 100, Unit: "%", Source: seg.Input},
		{Label: "GC CPU predicted", Value: best.GCCPUFraction.Value * 100, Unit: "%", Source: seg.Input},
		{Label: "peak heap now (model)", Value: base.PeakHeap.Value / (1 << 20), Unit: "MiB", Source: seg.Input},
		{Label: "peak heap predicted", Value: best.PeakHeap.Value / (1 << 20), Unit: "MiB", Source: seg.Input},
	}
	f.Remedy = fmt.Sprintf("After the code fixes, raise GOGC (GOGC=%s is the smallest value that cuts GC CPU by a quarter, so the heap grows no more than it must) and set GOMEMLIMIT to about 90%% of the memory the program may use, so the heap cannot outgrow it. With the budget known, gcdoctor whatif --budget SIZE (or gcdoctor doctor --budget SIZE) picks both.",
		gogcArg(best.Setting.GOGC))
	f.Verify, f.Command = verify(best.Setting), sweep(best.Setting)
	return f
}

func gogcArg(g int) string {
	if g < 0 {
		return "off"
	}
	return fmt.Sprint(g)
}
