package fleet

import (
	"math"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/pacer"
)

// base is a quiet instance with every figure known: no rule fires on it.
func base() *Instance {
	return &Instance{Job: "api", Instance: "10.0.0.1:8080", GoVersion: "go1.26.8",
		GCCores: 0.02, GCCoresLow: 0.02, GCCoresHigh: 0.02, ProcessCores: 1, GCShare: 0.02, GCAvailableShare: 0.005,
		GCPerSecond: 0.5, PauseP99S: 0.0002, PauseMaxS: 0.0005, PauseSecsPerSec: 0.0001, AllocBytesPerSec: 20 << 20,
		LiveBytes: 100 << 20, GoalBytes: 200 << 20, GoalMaxBytes: 210 << 20, GoalMedianBytes: 200 << 20,
		StacksBytes: 1 << 20, GlobalsBytes: 1 << 20, HeapInuseBytes: 150 << 20, RSSMaxBytes: 260 << 20,
		GOGC: 100, GOGCKnown: true, GOMAXPROCS: 4, Goroutines: 300,
		LiveSlope: 0, LiveStart: 100 << 20, LiveEnd: 100 << 20, LiveR2: 0, LiveToGoal: 0.5, MarkShare: 0.1, WindowS: 3600}
}

// TestJudge holds each rule to a case that fires and a near miss, on the
// figures Prometheus gives.
func TestJudge(t *testing.T) {
	for _, tt := range []struct {
		name string
		id   string // "" for none of the rule's
		rule string
		edit func(*Instance)
	}{
		{"gc-cpu-high fires", "gc-cpu-high", "gc-cpu-high", func(in *Instance) { in.GCCores, in.GCAvailableShare = 0.4, 0.10 }},
		{"gc-cpu-high near miss", "", "gc-cpu-high", func(in *Instance) { in.GCCores, in.GCAvailableShare = 0.39, 0.0999 }},
		{"gc-cpu-high too few cycles", "", "gc-cpu-high", func(in *Instance) { in.GCAvailableShare, in.GCPerSecond = 0.3, 2.0/3600 }},
		{"death spiral fires", "memlimit-death-spiral", "memlimit-death-spiral", func(in *Instance) {
			in.LiveToGoal, in.MarkShare, in.MemoryLimit, in.GCPerSecond = 0.97, 0.6, 110<<20, 20
		}},
		{"death spiral near miss: marking", "", "memlimit-death-spiral", func(in *Instance) { in.LiveToGoal, in.MarkShare, in.GCPerSecond = 0.97, 0.49, 20 }},
		{"death spiral near miss: room", "", "memlimit-death-spiral", func(in *Instance) { in.LiveToGoal, in.MarkShare, in.GCPerSecond = 0.94, 0.9, 20 }},
		{"death spiral not judged without the live heap", "", "memlimit-death-spiral", func(in *Instance) { in.LiveToGoal, in.MarkShare = math.NaN(), 0.9 }},
		{"growth fires", "live-heap-growth", "live-heap-growth", func(in *Instance) {
			in.LiveSlope, in.LiveStart, in.LiveEnd, in.LiveR2 = float64(60<<20)/3600, 60<<20, 120<<20, 0.9
		}},
		{"growth near miss: fit", "", "live-heap-growth", func(in *Instance) {
			in.LiveSlope, in.LiveStart, in.LiveEnd, in.LiveR2 = float64(60<<20)/3600, 60<<20, 120<<20, 0.69
		}},
		{"growth near miss: factor", "", "live-heap-growth", func(in *Instance) {
			in.LiveSlope, in.LiveStart, in.LiveEnd, in.LiveR2 = float64(40<<20)/3600, 100<<20, 140<<20, 0.9
		}},
		{"rss fires", "rss-over-heap", "rss-over-heap", func(in *Instance) { in.RSSMaxBytes = 400 << 20 }},
		{"rss near miss", "", "rss-over-heap", func(in *Instance) { in.RSSMaxBytes = 317 << 20 }},
		{"stw fires on the max", "stw-long", "stw-long", func(in *Instance) { in.PauseMaxS = 0.012 }},
		{"stw fires on the p99", "stw-long", "stw-long", func(in *Instance) { in.PauseP99S = 0.006 }},
		{"stw near miss", "", "stw-long", func(in *Instance) { in.PauseMaxS, in.PauseP99S = 0.0099, 0.0049 }},
		{"churn fires", "alloc-churn", "alloc-churn", func(in *Instance) {
			in.AllocBytesPerSec, in.LiveBytes, in.GCPerSecond, in.GoalMedianBytes = 200<<20, 16<<20, 6, 32<<20
		}},
		{"churn near miss: turnover", "", "alloc-churn", func(in *Instance) {
			in.AllocBytesPerSec, in.LiveBytes, in.GCPerSecond, in.GoalMedianBytes = 200<<20, 21<<20, 6, 42<<20
		}},
		{"churn yields to the minimum heap", "", "alloc-churn", func(in *Instance) {
			in.AllocBytesPerSec, in.LiveBytes, in.GCPerSecond, in.GoalMedianBytes = 200<<20, 1<<20, 50, 4<<20
		}},
		{"min heap fires", "gc-min-heap", "gc-min-heap", func(in *Instance) {
			in.LiveBytes, in.GCPerSecond, in.GoalMedianBytes = 1<<20, 50, 4<<20
		}},
		{"min heap near miss", "", "gc-min-heap", func(in *Instance) {
			in.LiveBytes, in.GCPerSecond, in.GoalMedianBytes = 1<<20, 4.9, 4<<20
		}},
		{"min heap at GOGC=400", "gc-min-heap", "gc-min-heap", func(in *Instance) {
			in.LiveBytes, in.GCPerSecond, in.GoalMedianBytes, in.GOGC = 1<<20, 50, 16<<20, 400
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			tt.edit(in)
			fs := judge(in, `env="prod"`, time.Hour, time.Unix(1e9, 0))
			var got *string
			for i := range fs {
				if fs[i].ID == tt.rule {
					got = &fs[i].ID
					if fs[i].Title == "" || fs[i].Message == "" || fs[i].Remedy == "" || len(fs[i].Evidence) == 0 {
						t.Errorf("%s lacks its title, message, remedy or evidence: %+v", tt.rule, fs[i])
					}
				}
			}
			switch {
			case tt.id != "" && got == nil:
				t.Errorf("%s did not fire; findings %v", tt.id, fs)
			case tt.id == "" && got != nil:
				t.Errorf("%s fired: %+v", tt.rule, fs)
			}
		})
	}
	// The quiet instance has no finding at all.
	if fs := judge(base(), "", time.Hour, time.Unix(1e9, 0)); len(fs) != 0 {
		t.Errorf("the quiet instance has findings: %v", fs)
	}
}

// TestModel checks the steady-state model: the observed setting gives
// back what was observed, a higher GOGC fewer cores, and a limit at the
// live heap is not safe.
func TestModel(t *testing.T) {
	in := base()
	in.GCCores, in.GCCoresLow, in.GCCoresHigh, in.GCPerSecond = 0.2, 0.2, 0.2, 0.25
	m := fit(in)
	if m.Err != "" {
		t.Fatal(m.Err)
	}
	obs := m.Predict(m.Observed)
	if math.Abs(obs.GCCores.Value-0.2) > 1e-9 || !obs.Safe {
		t.Errorf("observed setting predicts %v cores (safe %v), want 0.2", obs.GCCores, obs.Safe)
	}
	p := m.Predict(pacer.Setting{GOGC: 200})
	if !(p.GCCores.Value < 0.11 && p.GCCores.Value > 0.09) || !(p.GoalMiB > obs.GoalMiB) || !(p.GCCores.Low <= p.GCCores.Value && p.GCCores.Value <= p.GCCores.High) {
		t.Errorf("GOGC=200 predicts %v cores, goal %v MiB (now %v)", p.GCCores, p.GoalMiB, obs.GoalMiB)
	}
	if p := m.Predict(pacer.Setting{GOGC: pacer.Off, MemoryLimit: 101 << 20}); p.Safe {
		t.Errorf("a limit at the live heap is safe: %+v", p)
	}
	if p := m.Predict(pacer.Setting{GOGC: pacer.Off}); p.Safe {
		t.Errorf("GOGC=off without a limit is safe: %+v", p)
	}
	in.GCPerSecond = 0
	if m := fit(in); m.Err == "" {
		t.Error("a model fitted without cycles")
	}
}

// TestTune checks a job's recommendation with a budget, and without one.
func TestTune(t *testing.T) {
	mk := func() []*Instance {
		var ins []*Instance
		for range 3 {
			in := base()
			in.GCCores, in.GCCoresLow, in.GCCoresHigh, in.GCPerSecond, in.GCAvailableShare = 0.2, 0.2, 0.2, 0.25, 0.05
			in.Model = fit(in)
			ins = append(ins, in)
		}
		return ins
	}
	r := &Report{Instances: mk()}
	r.Jobs = jobs(r.Instances)
	sv := Tune(r, 1<<30)
	jt := r.Jobs[0].Tuning
	if jt.Err != "" || jt.Setting.MemoryLimit != limitShare(1<<30) || jt.Setting.GOGC <= 100 || sv.Jobs != 1 || !(sv.Saved.Value > 0.3) || jt.Modelled != 3 {
		t.Errorf("with a 1 GiB budget: %+v, savings %+v", jt, sv)
	}
	r = &Report{Instances: mk()}
	r.Jobs = jobs(r.Instances)
	sv = Tune(r, 0)
	jt = r.Jobs[0].Tuning
	if jt.Err != "" || jt.Setting != (pacer.Setting{GOGC: 200}) || len(jt.Alternatives) != 3 || !(sv.Saved.Value > 0.25) || !(jt.PredictedGoalMiB > jt.GoalMiB) {
		t.Errorf("without a budget: %+v, savings %+v", jt, sv)
	}
	r = &Report{Instances: mk()}
	r.Jobs = jobs(r.Instances)
	Tune(r, 150<<20)
	if jt := r.Jobs[0].Tuning; jt.Err == "" {
		t.Errorf("a 150 MiB budget for 100 MiB live heaps and 260 MiB RSS: %+v", jt)
	}
}
