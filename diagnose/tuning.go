package diagnose

import (
	"fmt"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/goversion"
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
	// version, peak RSS). Diagnose fills the fields left zero from the
	// Input: its GOGC, GOMEMLIMIT, Go version and peak RSS.
	Options pacer.Options
	// Settings are the settings to predict (gcdoctor whatif); none means
	// the higher GOGC values 200, 400 and 800 when no budget is known.
	Settings []pacer.Setting
	// Segment is the index of the process to model when SegmentSet;
	// otherwise the log's busiest process is modelled (gctrace.Log.Busiest).
	Segment    int
	SegmentSet bool
}

// complete fills in what the evidence knows about the run the log was
// recorded from, and, with no budget asked for, the container's memory
// limit.
func (req *TuneRequest) complete(in *Input) *TuneRequest {
	if req == nil {
		return nil
	}
	r := *req
	o := &r.Options
	if g, err := pacer.ParseGOGC(in.GOGC); err == nil && in.GOGC != "" && o.GOGC == 0 {
		o.GOGC = g
	}
	if l, err := pacer.ParseGOMEMLIMIT(in.GOMEMLIMIT); err == nil && in.GOMEMLIMIT != "" && o.MemoryLimit == 0 {
		o.MemoryLimit = l
	}
	if o.GoMinor == 0 {
		o.GoMinor = goversion.Minor(in.GoVersion)
	}
	if o.RSS == 0 {
		o.RSS = in.PeakRSS
	}
	if r.Budget == 0 && in.Run != nil && in.Run.CgroupMemoryLimit > 0 {
		r.Budget, r.BudgetSource = in.Run.CgroupMemoryLimit, "the cgroup memory limit"
	}
	return &r
}

// TuningEvidence is the pacer model of the program's busiest process and
// what it predicts.
type TuningEvidence struct {
	Segment *gctrace.Segment // the process modelled
	Model   *pacer.Model
	// Baseline replays the observed setting; Alternatives are the
	// settings asked for, or else, when no budget is known, the higher
	// GOGC values tried.
	Baseline     pacer.Prediction
	Alternatives []pacer.Prediction
	// Recommendation is the chosen setting when a budget is known.
	Recommendation *pacer.Recommendation
	BudgetSource   string
	// Err says why there is no model (too few cycles, say); the other
	// fields are then empty.
	Err string
}

// tune fits the pacer model to the process asked for, by default the
// busiest, and predicts with it.
func tune(log *gctrace.Log, req *TuneRequest) *TuningEvidence {
	if req == nil || log == nil || len(log.Segments) == 0 {
		return nil
	}
	seg := log.Busiest()
	if req.SegmentSet && req.Segment >= 0 && req.Segment < len(log.Segments) {
		seg = log.Segments[req.Segment]
	}
	t := &TuningEvidence{Segment: seg, BudgetSource: req.BudgetSource}
	m, err := pacer.Fit(seg, req.Options)
	if err != nil {
		t.Err = err.Error()
		return t
	}
	t.Model = m
	t.Baseline = m.Predict(m.Observed)
	for _, s := range req.Settings {
		t.Alternatives = append(t.Alternatives, m.Predict(s))
	}
	if req.Budget > 0 {
		r := pacer.Recommend(m, req.Budget, req.Objective)
		t.Recommendation = &r
		return t
	}
	if len(req.Settings) > 0 {
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
