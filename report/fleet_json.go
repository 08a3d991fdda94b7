package report

import (
	"encoding/json"
	"io"
	"time"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

// The fleet document's JSON (docs/json.md, "gcdoctor fleet"). Figures the
// metrics do not give are null.

type jsonFleet struct {
	Prometheus       string          `json:"prometheus"`
	Selector         string          `json:"selector"`
	RangeSeconds     float64         `json:"range_seconds"`
	End              string          `json:"end"`
	Instances        int             `json:"instances"`
	Jobs             int             `json:"jobs"`
	CutInstances     int             `json:"cut_instances"`
	GCCPUCoresTotal  num             `json:"gc_cpu_cores_total"`
	GCCPUCoresEst    num             `json:"gc_cpu_cores_estimated"`
	ProcessCPUCores  num             `json:"process_cpu_cores_total"`
	Calibration      jsonCalibration `json:"calibration"`
	Savings          jsonSavings     `json:"savings"`
	QueriesSent      int             `json:"queries_sent"`
	QueriesFailed    int             `json:"queries_failed"`
	ResponseBytes    int64           `json:"response_bytes"`
	SlowestQuerySecs num             `json:"slowest_query_seconds"`
	DrilledInstances int             `json:"drilled_instances"`
	DrillFailed      int             `json:"drill_failed"`
}

type jsonCalibration struct {
	MSPerCycleMiB num    `json:"ms_per_cycle_mib"`
	Low           num    `json:"low"`
	High          num    `json:"high"`
	Instances     int    `json:"instances"`
	From          string `json:"from"`
}

type jsonSavings struct {
	GCCPUCores   jsonRange `json:"gc_cpu_cores"`
	Jobs         int       `json:"jobs"`
	ExtraGoalMiB num       `json:"extra_heap_goal_mib"`
}

type jsonQuery struct {
	Name     string   `json:"name"`
	PromQL   string   `json:"promql"`
	Series   int      `json:"series"`
	Bytes    int64    `json:"bytes"`
	Seconds  num      `json:"seconds"`
	Warnings []string `json:"warnings"`
	Error    string   `json:"error,omitempty"`
}

type jsonFleetInstance struct {
	Instance          string        `json:"instance"`
	Job               string        `json:"job"`
	GoVersion         string        `json:"go_version"`
	GCCPUCores        num           `json:"gc_cpu_cores"`
	GCCPUCoresLow     num           `json:"gc_cpu_cores_low"`
	GCCPUCoresHigh    num           `json:"gc_cpu_cores_high"`
	GCCPUEstimated    bool          `json:"gc_cpu_estimated"`
	GCCPUFrom         string        `json:"gc_cpu_from"`
	ProcessCPUCores   num           `json:"process_cpu_cores"`
	GCShareOfProcess  num           `json:"gc_share_of_process_cpu"`
	GCShareAvailable  num           `json:"gc_share_of_available_cpu"`
	GCPerSecond       num           `json:"gc_per_second"`
	PauseP99MS        num           `json:"pause_p99_ms"`
	PauseMaxMS        num           `json:"pause_max_ms"`
	AllocBytesPerSec  num           `json:"alloc_bytes_per_second"`
	HeapLiveBytes     num           `json:"heap_live_bytes"`
	HeapLiveEstimated bool          `json:"heap_live_estimated"`
	HeapGoalBytes     num           `json:"heap_goal_bytes"`
	HeapGoalMaxBytes  num           `json:"heap_goal_max_bytes"`
	RSSMaxBytes       num           `json:"rss_max_bytes"`
	GOGC              *int          `json:"gogc"`
	GOMEMLIMIT        *int64        `json:"gomemlimit_bytes"`
	GOMAXPROCS        *int          `json:"gomaxprocs"`
	Goroutines        num           `json:"goroutines"`
	LiveSlope         num           `json:"live_heap_slope_bytes_per_second"`
	LiveR2            num           `json:"live_heap_fit_r2"`
	LiveToGoal        num           `json:"live_to_goal_median"`
	MarkShare         num           `json:"mark_share"`
	WindowSeconds     num           `json:"window_seconds"`
	Missing           []string      `json:"missing"`
	Findings          []jsonFinding `json:"findings"`
	Model             *jsonModelFit `json:"model"`
}

type jsonModelFit struct {
	Error        string `json:"error,omitempty"`
	RunwayRatio  num    `json:"runway_ratio,omitempty"`
	CostPerCycle num    `json:"gc_cpu_seconds_per_cycle,omitempty"`
}

type jsonJob struct {
	Job          string         `json:"job"`
	Instances    int            `json:"instances"`
	Estimated    int            `json:"estimated"`
	GCCPUCores   num            `json:"gc_cpu_cores"`
	ProcessCores num            `json:"process_cpu_cores"`
	GCShare      num            `json:"gc_share_of_process_cpu"`
	Findings     []jsonJobFind  `json:"findings"`
	Tuning       *jsonJobTuning `json:"tuning"`
}

type jsonJobFind struct {
	ID        string `json:"id"`
	Severity  string `json:"severity"`
	Instances int    `json:"instances"`
}

type jsonJobTuning struct {
	Current          string            `json:"current"`
	Setting          string            `json:"setting,omitempty"`
	BudgetBytes      int64             `json:"budget_bytes"`
	BudgetFrom       string            `json:"budget_from,omitempty"`
	Modelled         int               `json:"modelled"`
	Unfitted         []string          `json:"unfitted"`
	GCCPUCores       jsonRange         `json:"gc_cpu_cores"`
	Predicted        jsonRange         `json:"predicted_gc_cpu_cores"`
	Saved            jsonRange         `json:"saved_gc_cpu_cores"`
	GoalMiB          num               `json:"heap_goal_mib"`
	PredictedGoalMiB num               `json:"predicted_heap_goal_mib"`
	Alternatives     []jsonAlternative `json:"alternatives"`
	Error            string            `json:"error,omitempty"`
}

type jsonAlternative struct {
	Setting          string    `json:"setting"`
	Saved            jsonRange `json:"saved_gc_cpu_cores"`
	PredictedGoalMiB num       `json:"predicted_heap_goal_mib"`
}

type jsonDrill struct {
	Job      string        `json:"job"`
	Instance string        `json:"instance"`
	URL      string        `json:"url"`
	Bundle   string        `json:"bundle"`
	Seconds  num           `json:"seconds"`
	Error    string        `json:"error,omitempty"`
	Verdict  string        `json:"verdict,omitempty"`
	Findings []jsonFinding `json:"findings"`
}

func findingsJSON(fs []diagnose.Finding) []jsonFinding {
	out := []jsonFinding{}
	for _, f := range fs {
		jf := jsonFinding{ID: f.ID, Severity: f.Severity.String(), Title: f.Title, Message: f.Message,
			Evidence: []jsonEvidence{}, Where: locationsJSON(f.Where), Remedy: f.Remedy, Verify: f.Verify,
			Caveats: nonNil(f.Caveats), Segments: nonNil(f.Segments), Also: f.Also}
		for _, e := range f.Evidence {
			jf.Evidence = append(jf.Evidence, jsonEvidence{Label: e.Label, Value: num(e.Value), Unit: e.Unit, Source: e.Source})
		}
		out = append(out, jf)
	}
	return out
}

// FleetJSON writes the fleet report as one JSON document: the fleet's
// totals, the queries sent, every instance analysed (not only the top
// ones), the jobs with their tuning, and the drill-down.
func FleetJSON(w io.Writer, f *Fleet, toolVersion string) error {
	r := f.Report
	doc := object{{"schema_version", SchemaVersion}, {"tool", "gcdoctor"}}
	if toolVersion != "" {
		doc = append(doc, Field{"tool_version", toolVersion})
	}
	jf := jsonFleet{Prometheus: r.Prometheus, Selector: r.Match, RangeSeconds: r.Range.Seconds(), End: r.End.UTC().Format(time.RFC3339),
		Instances: len(r.Instances), Jobs: len(r.Jobs), CutInstances: r.Cut,
		GCCPUCoresTotal: num(r.GCCores), GCCPUCoresEst: num(r.GCCoresEstimated), ProcessCPUCores: num(r.ProcessCores),
		Calibration: jsonCalibration{num(r.Calibration.MS), num(r.Calibration.LowMS), num(r.Calibration.HighMS), r.Calibration.Instances, r.Calibration.From},
		Savings:     jsonSavings{rangeJSON(r.Tuning.Saved), r.Tuning.Jobs, num(r.Tuning.ExtraGoalMiB)},
		QueriesSent: len(r.Queries), DrilledInstances: len(r.Drill)}
	queries := []jsonQuery{}
	var slowest float64
	for _, q := range r.Queries {
		if q.Err != "" {
			jf.QueriesFailed++
		}
		jf.ResponseBytes += q.Bytes
		slowest = max(slowest, q.Secs)
		queries = append(queries, jsonQuery{Name: q.Name, PromQL: q.PromQL, Series: q.Series, Bytes: q.Bytes, Seconds: num(q.Secs), Warnings: nonNil(q.Warnings), Error: q.Err})
	}
	jf.SlowestQuerySecs = num(slowest)
	instances := []jsonFleetInstance{}
	for _, in := range r.Instances {
		ji := jsonFleetInstance{Instance: in.Instance, Job: in.Job, GoVersion: in.GoVersion,
			GCCPUCores: num(in.GCCores), GCCPUCoresLow: num(in.GCCoresLow), GCCPUCoresHigh: num(in.GCCoresHigh),
			GCCPUEstimated: in.GCCoresEstimated, GCCPUFrom: in.GCCoresFrom, ProcessCPUCores: num(in.ProcessCores),
			GCShareOfProcess: num(in.GCShare), GCShareAvailable: num(in.GCAvailableShare), GCPerSecond: num(in.GCPerSecond),
			PauseP99MS: num(in.PauseP99S * 1000), PauseMaxMS: num(in.PauseMaxS * 1000), AllocBytesPerSec: num(in.AllocBytesPerSec),
			HeapLiveBytes: num(in.LiveBytes), HeapLiveEstimated: in.LiveEstimated, HeapGoalBytes: num(in.GoalBytes), HeapGoalMaxBytes: num(in.GoalMaxBytes),
			RSSMaxBytes: num(in.RSSMaxBytes), Goroutines: num(in.Goroutines), LiveSlope: num(in.LiveSlope), LiveR2: num(in.LiveR2),
			LiveToGoal: num(in.LiveToGoal), MarkShare: num(in.MarkShare), WindowSeconds: num(in.WindowS),
			Missing: nonNil(in.Missing), Findings: findingsJSON(in.Findings)}
		if in.GOGCKnown {
			g := in.GOGC
			ji.GOGC = &g
		}
		l := in.MemoryLimit
		ji.GOMEMLIMIT = &l
		if in.GOMAXPROCS > 0 {
			p := in.GOMAXPROCS
			ji.GOMAXPROCS = &p
		}
		if m := in.Model; m != nil {
			ji.Model = &jsonModelFit{Error: m.Err}
			if m.Err == "" {
				ji.Model.RunwayRatio, ji.Model.CostPerCycle = num(m.RunwayRatio), num(m.CostPerCycle)
			}
		}
		instances = append(instances, ji)
	}
	jobs := []jsonJob{}
	for _, j := range r.Jobs {
		jj := jsonJob{Job: j.Name, Instances: j.Instances, Estimated: j.Estimated, GCCPUCores: num(j.GCCores), ProcessCores: num(j.ProcessCores),
			GCShare: num(j.GCShare), Findings: []jsonJobFind{}}
		for _, f := range j.Findings {
			jj.Findings = append(jj.Findings, jsonJobFind{f.ID, f.Severity.String(), f.Instances})
		}
		if t := j.Tuning; t != nil {
			jt := &jsonJobTuning{Current: settingName(t.Current), BudgetBytes: t.Budget, BudgetFrom: t.BudgetFrom, Modelled: t.Modelled,
				Unfitted: nonNil(t.Unfitted), GCCPUCores: rangeJSON(t.GCCores), Predicted: rangeJSON(t.Predicted), Saved: rangeJSON(t.Saved),
				GoalMiB: num(t.GoalMiB), PredictedGoalMiB: num(t.PredictedGoalMiB), Alternatives: []jsonAlternative{}, Error: t.Err}
			if t.Err == "" {
				jt.Setting = settingName(t.Setting)
			}
			for _, a := range t.Alternatives {
				jt.Alternatives = append(jt.Alternatives, jsonAlternative{settingName(a.Setting), rangeJSON(a.Saved), num(a.PredictedGoalMiB)})
			}
			jj.Tuning = jt
		}
		jobs = append(jobs, jj)
	}
	drill := []jsonDrill{}
	for _, d := range r.Drill {
		jd := jsonDrill{Job: d.Job, Instance: d.Instance, URL: d.URL, Bundle: d.Dir, Seconds: num(d.Secs), Error: d.Err, Findings: []jsonFinding{}}
		if d.Err != "" {
			jf.DrillFailed++
		}
		if d.Diagnosis != nil {
			jd.Verdict = verdict(d.Diagnosis)
			jd.Findings = findingsJSON(d.Diagnosis.Findings)
		}
		drill = append(drill, jd)
	}
	doc = append(doc, Field{"fleet", jf}, Field{"queries", queries}, Field{"instances", instances}, Field{"jobs", jobs},
		Field{"drill", drill}, Field{"notes", nonNil(r.Notes)})
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
