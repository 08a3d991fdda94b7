package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/fleet"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// fleetFixture is a small fleet as fleet.Analyze reports it: one job
// whose instance spirals at its limit, one whose GC CPU is estimated, a
// quiet one under a job name that carries control characters, with a
// drill-down that worked and one that failed.
func fleetFixture() *Fleet {
	nan := math.NaN()
	src := `max by (job, instance) (rate(go_gc_duration_seconds_count{job="api",instance="10.0.0.1:8080"}[1h])) at 2026-01-02T15:04:05Z`
	spiral := &fleet.Instance{Job: "api", Instance: "10.0.0.1:8080", GoVersion: "go1.26.8",
		GCCores: 1.6, GCCoresLow: 1.6, GCCoresHigh: 1.6, GCCoresFrom: "the runtime's CPU classes", ProcessCores: 2.9, GCShare: 0.55, GCAvailableShare: 0.4,
		GCPerSecond: 31, PauseP99S: 0.0004, PauseMaxS: 0.0021, AllocBytesPerSec: 310 << 20, LiveBytes: 930 << 20, GoalBytes: 950 << 20, GoalMaxBytes: 960 << 20,
		RSSMaxBytes: 1010 << 20, GOGC: -1, GOGCKnown: true, MemoryLimit: 1000 << 20, GOMAXPROCS: 4, LiveToGoal: 0.98, MarkShare: 0.9, WindowS: 3600,
		Findings: []diagnose.Finding{
			{ID: "memlimit-death-spiral", Severity: diagnose.Critical, Title: "The heap is pinned at its goal and the GC never stops",
				Message:  "For at least half of the window the live heap of api 10.0.0.1:8080 was 95% or more of the heap goal.",
				Evidence: []diagnose.Evidence{{Label: "GC cycles", Value: 31, Unit: "/s", Source: src}, {Label: "GOMAXPROCS", Value: 4, Unit: "count", Source: src}},
				Remedy:   "Raise GOMEMLIMIT.", Verify: "Run gcdoctor fleet again.", Caveats: []string{"read from samples"}},
			{ID: "gc-cpu-high", Severity: diagnose.Critical, Title: "GC takes a large share of the CPU", Message: "GC used 40% of the CPU.",
				Evidence: []diagnose.Evidence{{Label: "GC CPU", Value: 1.6, Unit: "cores", Source: src}}, Remedy: "Allocate less.", Verify: "Rerun."},
		},
		Model: &fleet.Model{Err: "its heap goal leaves no runway above the live heap"}}
	est := &fleet.Instance{Job: "batch", Instance: "10.0.0.2:9100", GCCores: 0.3, GCCoresLow: 0.15, GCCoresHigh: 0.7, GCCoresEstimated: true,
		GCCoresFrom: "cycles/s × 0.39 ms per cycle and scanned MiB", ProcessCores: 1.2, GCShare: 0.25, GCAvailableShare: 0.15,
		GCPerSecond: 12, PauseP99S: nan, PauseMaxS: 0.0009, AllocBytesPerSec: 800 << 20, LiveBytes: 30 << 20, LiveEstimated: true,
		GoalBytes: 62 << 20, GoalMaxBytes: 64 << 20, RSSMaxBytes: 90 << 20, GOGC: 100, GOMAXPROCS: 2, WindowS: 3600,
		Missing: []string{"no go_cpu_classes_gc_* (runtime metrics off, or Go before 1.20): GC CPU is estimated", "no go_gc_gogc_percent (client_golang before v1.20): GOGC taken as 100"},
		Findings: []diagnose.Finding{{ID: "gc-cpu-high", Severity: diagnose.Warning, Title: "GC takes a large share of the CPU", Message: "GC used 15% of the CPU.",
			Evidence: []diagnose.Evidence{{Label: "GC CPU", Value: 0.3, Unit: "cores", Source: "estimated from " + src}}, Caveats: []string{"GC CPU is an estimate (0.15–0.7 cores)"},
			Remedy: "Allocate less.", Verify: "Rerun."}}}
	quiet := &fleet.Instance{Job: "evil\x1b]0;x\x07\x1b[31mjob", Instance: "10.0.0.3:8080\x1b[2J", GCCores: 0.001, GCCoresLow: 0.001, GCCoresHigh: 0.001,
		ProcessCores: 0.05, GCShare: 0.02, GCAvailableShare: 0.001, GCPerSecond: 0.2, PauseP99S: 0.0001, PauseMaxS: 0.0002, AllocBytesPerSec: 1 << 20,
		LiveBytes: 8 << 20, GoalBytes: 16 << 20, GoalMaxBytes: 16 << 20, RSSMaxBytes: 40 << 20, GOGC: 100, GOGCKnown: true, GOMAXPROCS: 1, WindowS: 3600,
		Missing: []string{"no go_gc_gogc_percent (client_golang before v1.20): GOGC taken as 100"}}
	end := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	r := &fleet.Report{Prometheus: "http://prometheus:9090", Match: `env="prod"`, Range: time.Hour, End: end,
		GCCores: 1.901, GCCoresEstimated: 0.3, ProcessCores: 4.15, Instances: []*fleet.Instance{spiral, est, quiet},
		Calibration: fleet.DefaultCalibration,
		Queries: []fleet.Query{
			{Name: "gc_cycles_per_second", PromQL: `max by (job, instance) (rate(go_gc_duration_seconds_count{env="prod"}[1h]))`, Series: 3, Bytes: 400, Secs: 0.02},
			{Name: "gc_cpu_fraction", PromQL: `max by (job, instance) (last_over_time(go_memstats_gc_cpu_fraction{env="prod"}[1h]))`, Err: "server error: 503 overloaded\x1b[2J"},
		},
		Notes: []string{"query gc_cpu_fraction: server error: 503 overloaded\x1b[2J: its figures are missing"}}
	r.Jobs = []*fleet.Job{
		{Name: "api", Instances: 1, GCCores: 1.6, ProcessCores: 2.9, GCShare: 0.55, Findings: []fleet.JobFinding{{ID: "memlimit-death-spiral", Severity: diagnose.Critical, Instances: 1}, {ID: "gc-cpu-high", Severity: diagnose.Critical, Instances: 1}},
			Tuning: &fleet.JobTuning{Job: "api", Current: pacer.Setting{GOGC: -1, MemoryLimit: 1000 << 20}, Err: "no instance of the job could be modelled", Unfitted: []string{"1: its heap goal leaves no runway above the live heap"}}},
		{Name: "batch", Instances: 1, Estimated: 1, GCCores: 0.3, ProcessCores: 1.2, GCShare: 0.25, Findings: []fleet.JobFinding{{ID: "gc-cpu-high", Severity: diagnose.Warning, Instances: 1}},
			Tuning: &fleet.JobTuning{Job: "batch", Current: pacer.Setting{GOGC: 100}, Setting: pacer.Setting{GOGC: 200}, Modelled: 1,
				GCCores: pacer.Range{Value: 0.3, Low: 0.15, High: 0.7}, Predicted: pacer.Range{Value: 0.15, Low: 0.07, High: 0.38}, Saved: pacer.Range{Value: 0.15, Low: 0, High: 0.63},
				GoalMiB: 62, PredictedGoalMiB: 92, Alternatives: []fleet.Alternative{{Setting: pacer.Setting{GOGC: 200}, Saved: pacer.Range{Value: 0.15, Low: 0, High: 0.63}, PredictedGoalMiB: 92},
					{Setting: pacer.Setting{GOGC: 400}, Saved: pacer.Range{Value: 0.22, Low: 0.05, High: 0.66}, PredictedGoalMiB: 152}}}},
		{Name: quiet.Job, Instances: 1, GCCores: 0.001, ProcessCores: 0.05, GCShare: 0.02,
			Tuning: &fleet.JobTuning{Job: quiet.Job, Current: pacer.Setting{GOGC: 100}, Setting: pacer.Setting{GOGC: 200}, Modelled: 1,
				GCCores: pacer.Range{Value: 0.001, Low: 0.001, High: 0.001}, Predicted: pacer.Range{Value: 0.0005, Low: 0.00045, High: 0.00055}, Saved: pacer.Range{Value: 0.0005, Low: 0.00045, High: 0.00055}, GoalMiB: 16, PredictedGoalMiB: 24}},
	}
	for _, j := range r.Jobs {
		r.Tuning.PerJob = append(r.Tuning.PerJob, j.Tuning)
	}
	r.Tuning.Jobs, r.Tuning.Saved, r.Tuning.ExtraGoalMiB = 2, pacer.Range{Value: 0.1505, Low: 0.00045, High: 0.63055}, 38
	r.Drill = []*fleet.DrillResult{
		{Job: "api", Instance: "10.0.0.1:8080", URL: "http://10.0.0.1:8080", Dir: "gcdoctor-fleet/01-api-10.0.0.1_8080", Secs: 7,
			Diagnosis: &diagnose.Diagnosis{Findings: []diagnose.Finding{{ID: "heap-hot-site", Severity: diagnose.Warning, Title: "One site allocates most of the bytes", Message: "cache.go:42 allocates 80% of the bytes. More."}}}},
		{Job: "batch", Instance: "10.0.0.2:9100", URL: "http://10.0.0.2:6060", Dir: "gcdoctor-fleet/02-batch-10.0.0.2_9100", Secs: 60, Err: "no diagnosis within 1m0s: context deadline exceeded"},
	}
	return &Fleet{Report: r, Top: 2}
}

func TestFleetFormats(t *testing.T) {
	f := fleetFixture()
	for _, tt := range []struct{ name, format string }{{"fleet.txt", "text"}, {"fleet.md", "markdown"}, {"fleet.json", "json"}} {
		t.Run(tt.format, func(t *testing.T) {
			rf, _ := Find(FleetFormats, tt.format)
			var b bytes.Buffer
			if err := rf.Render(&b, f, Options{ToolVersion: "test", Width: 80}); err != nil {
				t.Fatal(err)
			}
			if bytes.ContainsAny(b.Bytes(), "\x1b\x07") && tt.format != "json" {
				t.Errorf("%s: a control character from a label value or the server is in the output", tt.format)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
	var b bytes.Buffer
	if err := FleetHTML(&b, f, "test"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`id="chart-gc-by-job"`, "data:image/svg+xml", "memlimit-death-spiral", "Tuning", "Drill-down", "Content-Security-Policy"} {
		if !strings.Contains(page, strings.ReplaceAll(want, "+", "&#43;")) && !strings.Contains(page, want) {
			t.Errorf("the HTML page lacks %q", want)
		}
	}
	if strings.ContainsAny(page, "\x1b\x07") {
		t.Error("a control character reached the HTML page")
	}
	var v map[string]any
	b.Reset()
	if err := FleetJSON(&b, f, "test"); err != nil || json.Unmarshal(b.Bytes(), &v) != nil {
		t.Fatalf("JSON: %v", err)
	}
	if fl := v["fleet"].(map[string]any); fl["gc_cpu_cores_total"] != 1.901 || len(v["instances"].([]any)) != 3 {
		t.Errorf("JSON fleet %v, %d instances (JSON lists them all, not only --top)", fl, len(v["instances"].([]any)))
	}
}
