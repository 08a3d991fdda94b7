package diagnose

import (
	"errors"
	"fmt"
	"sort"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/goversion"
	"github.com/gcdoctor/gcdoctor/internal/plural"
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

// NewTuneRequest reads what the user asks of the tuning: a goal, cpu or
// latency, and a memory budget such as 512MiB or none; budgetSource names
// where the budget came from. The errors name the value at fault.
func NewTuneRequest(goal, budget, budgetSource string) (*TuneRequest, error) {
	tr := &TuneRequest{}
	switch goal {
	case "cpu":
		tr.Objective = pacer.CPU
	case "latency":
		tr.Objective = pacer.Latency
	default:
		return nil, fmt.Errorf("goal must be cpu or latency, not %q", goal)
	}
	if budget != "" {
		b, err := pacer.ParseSize(budget)
		if err != nil {
			return nil, fmt.Errorf("budget %s: %v", budget, err)
		}
		if b <= 0 {
			return nil, errors.New("budget must be positive")
		}
		tr.Budget, tr.BudgetSource = b, budgetSource
	}
	return tr, nil
}

// TuneFlags is NewTuneRequest for the flags --goal and --budget, with
// errors that name them.
func TuneFlags(goal, budget string) (*TuneRequest, error) {
	tr, err := NewTuneRequest(goal, budget, "--budget")
	if err != nil {
		return nil, fmt.Errorf("--%v", err)
	}
	return tr, nil
}

// NewWhatIfRequest checks what gcdoctor whatif is asked: the settings to
// predict (every --predict-gogc with every --predict-memlimit), the goal
// and budget (see NewTuneRequest), and the setting the log was recorded
// with (--current-gogc, --current-memlimit). Its errors name the flags.
func NewWhatIfRequest(gogcs, limits []string, goal, budget, currentGOGC, currentLimit string) (*TuneRequest, error) {
	settings, err := pacer.ParseSettingFlags(gogcs, limits, "--predict-gogc", "--predict-memlimit")
	if err != nil {
		return nil, err
	}
	tr, err := TuneFlags(goal, budget)
	if err != nil {
		return nil, err
	}
	tr.Settings = settings
	if currentGOGC != "" {
		if _, err := pacer.ParseGOGC(currentGOGC); err != nil {
			return nil, fmt.Errorf("--current-gogc %s: %v", currentGOGC, err)
		}
	}
	if currentLimit != "" {
		if _, err := pacer.ParseMemoryLimit(currentLimit); err != nil {
			return nil, fmt.Errorf("--current-memlimit %s: %v", currentLimit, err)
		}
	}
	return tr, nil
}

// ChooseSegment asks for the process of index i (--segment) of log; a
// negative i leaves the choice to the model, the process with the most GC
// CPU time.
func (req *TuneRequest) ChooseSegment(i int, log *gctrace.Log) error {
	if i < 0 {
		return nil
	}
	n := 0
	if log != nil {
		n = len(log.Segments)
	}
	if i >= n {
		return fmt.Errorf("--segment %d: the log has %s (0–%d)", i, plural.Count(n, "process", "processes"), n-1)
	}
	req.Segment, req.SegmentSet = i, true
	return nil
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
	// Asked reports whether Segment is the process TuneRequest.Segment
	// asked for; otherwise it is the log's busiest (gctrace.Log.Busiest:
	// the most GC CPU time, or the most cycles without CPU figures).
	Asked bool
	// Processes is how many processes the log holds. Others are the
	// busiest of the rest, the busiest first, at most maxOtherProcesses of
	// them: the processes --segment could model instead.
	Processes int
	Others    []*gctrace.Segment
	Model     *pacer.Model
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
	t := &TuningEvidence{Segment: log.Busiest(), BudgetSource: req.BudgetSource, Processes: len(log.Segments)}
	if req.SegmentSet && req.Segment >= 0 && req.Segment < len(log.Segments) {
		t.Segment, t.Asked = log.Segments[req.Segment], true
	}
	t.Others = otherProcesses(log, t.Segment)
	m, err := pacer.Fit(t.Segment, req.Options)
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

// maxOtherProcesses bounds the other processes TuningEvidence lists.
const maxOtherProcesses = 5

// otherProcesses returns the busiest processes of log other than seg, the
// busiest first, at most maxOtherProcesses of them.
func otherProcesses(log *gctrace.Log, seg *gctrace.Segment) []*gctrace.Segment {
	var out []*gctrace.Segment
	for _, s := range log.Segments {
		if s != seg {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return busier(out[i], out[j]) })
	return out[:min(len(out), maxOtherProcesses)]
}

// busier reports whether a did more GC work than b, as gctrace.Log.Busiest
// judges it: more GC CPU time, or more cycles when the format has no CPU
// figures.
func busier(a, b *gctrace.Segment) bool {
	ca, cb := a.Summary.GCCPUMS, b.Summary.GCCPUMS
	if gctrace.Valid(ca) && gctrace.Valid(cb) && ca != cb {
		return ca > cb
	}
	return a.Summary.Cycles > b.Summary.Cycles
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

// Which names the process modelled, and why it was chosen when the log
// holds several, such as "#20 of 31, the process after # net/http (lines
// 107-112): the one with the most GC CPU time".
func (t *TuningEvidence) Which() string {
	s := t.Segment
	if t.Processes < 2 {
		return fmt.Sprintf("%s (lines %d-%d)", who(s), s.FirstLine, s.LastLine)
	}
	name := fmt.Sprintf("#%d of %d, %s (lines %d-%d)", s.Index, t.Processes, who(s), s.FirstLine, s.LastLine)
	switch {
	case t.Asked:
		return name + ": as asked"
	case gctrace.Valid(s.Summary.GCCPUMS):
		return name + ": the one with the most GC CPU time"
	}
	return name + ": the one with the most cycles"
}
