package diagnose

import (
	"fmt"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// TuneRequest asks Diagnose for tuning advice from the pacer model: what
// GOGC and GOMEMLIMIT would do for the program, given after the code fixes.
type TuneRequest struct {
	// Budget is the memory the program may use, bytes (a container's
	// limit); 0 when unknown, in which case the advice gives the predicted
	// cost of higher GOGC values instead of one recommended setting.
	Budget int64
	// BudgetSource says where Budget comes from, e.g. "--budget" or "the
	// cgroup memory limit".
	BudgetSource string
	Objective    pacer.Objective
	// Options describe the run the log was recorded from (GOGC, limit, Go
	// version, peak RSS).
	Options pacer.Options
}

// TuningEvidence is the pacer model of the program's busiest process and
// what it predicts.
type TuningEvidence struct {
	Segment *gctrace.Segment // the process modelled
	Model   *pacer.Model
	// Baseline replays the observed setting; Alternatives are the higher
	// GOGC values tried when no budget is known.
	Baseline     pacer.Prediction
	Alternatives []pacer.Prediction
	// Recommendation is the chosen setting when a budget is known.
	Recommendation *pacer.Recommendation
	BudgetSource   string
	// Err says why there is no model (too few cycles, say); the other
	// fields are then empty.
	Err string
}

// tune fits the pacer model to the process with the most cycles and
// predicts with it.
func tune(log *gctrace.Log, req *TuneRequest) *TuningEvidence {
	if req == nil || log == nil || len(log.Segments) == 0 {
		return nil
	}
	seg := log.Segments[0]
	for _, s := range log.Segments {
		if s.Summary.Cycles > seg.Summary.Cycles {
			seg = s
		}
	}
	t := &TuningEvidence{Segment: seg, BudgetSource: req.BudgetSource}
	m, err := pacer.Fit(seg, req.Options)
	if err != nil {
		t.Err = err.Error()
		return t
	}
	t.Model = m
	t.Baseline = m.Predict(m.Observed)
	if req.Budget > 0 {
		r := pacer.Recommend(m, req.Budget, req.Objective)
		t.Recommendation = &r
		return t
	}
	for _, g := range []int{200, 400, 800} {
		if m.Observed.GOGC == pacer.Off || g <= m.Observed.GOGC {
			continue
		}
		t.Alternatives = append(t.Alternatives, m.Predict(pacer.Setting{GOGC: g, MemoryLimit: m.Observed.MemoryLimit}))
	}
	return t
}

// Describe states the model's view of the program in one sentence.
func (t *TuningEvidence) Describe() string {
	if t == nil || t.Model == nil {
		return ""
	}
	m := t.Model
	return fmt.Sprintf("%s: live heap %.1f MiB (max %.1f), allocation %.0f MiB/s, GC CPU per cycle %s, %d cycles at %s.",
		t.Segment.Input+":"+fmt.Sprint(t.Segment.FirstLine), m.LiveMeanMiB, m.LiveMaxMiB, m.AllocRateMiBPerS, m.CostString(), m.Cycles, m.Observed)
}
