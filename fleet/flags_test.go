package fleet

import (
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

func TestFlagsParse(t *testing.T) {
	ok := Flags{Range: "1h", Top: 10, Seconds: 5}
	for _, tt := range []struct {
		name   string
		change func(f *Flags, o *Options, do *DrillOptions)
		err    string
	}{
		{"defaults", func(*Flags, *Options, *DrillOptions) {}, ""},
		{"range days", func(f *Flags, _ *Options, _ *DrillOptions) { f.Range = "1d" }, ""},
		{"range short", func(f *Flags, _ *Options, _ *DrillOptions) { f.Range = "5s" }, `--range "5s": want a duration between 10s and 31d, such as 1h`},
		{"range word", func(f *Flags, _ *Options, _ *DrillOptions) { f.Range = "hour" }, `--range "hour": want a duration between 10s and 31d, such as 1h`},
		{"end", func(f *Flags, _ *Options, _ *DrillOptions) { f.End = "yesterday" }, `--end "yesterday": want RFC 3339 (2026-01-02T15:04:05Z) or Unix seconds`},
		{"budget", func(f *Flags, _ *Options, _ *DrillOptions) { f.Budget = "-1GiB" }, `--budget "-1GiB": want a positive size such as 2GiB`},
		{"top", func(f *Flags, _ *Options, _ *DrillOptions) { f.Top = 0 }, "--top must be between 1 and 1000"},
		{"max instances", func(_ *Flags, o *Options, _ *DrillOptions) { o.MaxInstances = 0 }, "--max-instances must be between 1 and 10000"},
		{"drill", func(_ *Flags, _ *Options, do *DrillOptions) { do.Top = MaxDrill + 1 }, "--drill must be between 0 and 100"},
		{"seconds", func(f *Flags, _ *Options, _ *DrillOptions) { f.Seconds = -1 }, "--seconds must be between 0 and 600"},
		{"ports", func(f *Flags, _ *Options, _ *DrillOptions) { f.Ports = "x" }, "--pprof-port: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := ok
			o := Options{MaxInstances: DefaultMaxInstances, QueryTimeout: DefaultQueryTimeout}
			do := DrillOptions{Parallel: 4, Timeout: time.Minute}
			tt.change(&f, &o, &do)
			err := f.Parse(&o, &do)
			switch {
			case tt.err == "" && err != nil:
				t.Fatal(err)
			case tt.err == "":
				if o.Range < MinRange {
					t.Errorf("Range %v not set", o.Range)
				}
			case err == nil || len(err.Error()) < len(tt.err) || err.Error()[:len(tt.err)] != tt.err:
				t.Errorf("Parse: %v, want %q", err, tt.err)
			}
		})
	}
}

func TestReportFailOn(t *testing.T) {
	r := &Report{Instances: []*Instance{
		{Job: "a", Instance: "1", Findings: []diagnose.Finding{{ID: "gc-cpu-high", Severity: diagnose.Critical}}},
		{Job: "a", Instance: "2", Findings: []diagnose.Finding{{ID: "gc-cpu-high", Severity: diagnose.Critical}, {ID: "heap-churn", Severity: diagnose.Warning}}},
		{Job: "b", Instance: "3"},
	}}
	if err := r.FailOn(diagnose.Warning); err == nil || err.Error() != "findings at or above warning on 2 instances: gc-cpu-high, heap-churn" {
		t.Errorf("FailOn(warning) = %v", err)
	}
	if err := r.FailOn(diagnose.Critical); err == nil || err.Error() != "findings at or above critical on 2 instances: gc-cpu-high" {
		t.Errorf("FailOn(critical) = %v", err)
	}
	if err := (&Report{Instances: r.Instances[2:]}).FailOn(diagnose.Info); err != nil {
		t.Errorf("FailOn on an instance without findings = %v", err)
	}
}

func TestSayProgress(t *testing.T) {
	var said []string
	p := SayProgress(func(s string) { said = append(said, s) })
	p(0, 3, "api 10.0.0.1:9100")
	p(3, 3, "")
	if len(said) != 2 || said[0] != "0 of 3 diagnosed, now api 10.0.0.1:9100" || said[1] != "3 of 3 diagnosed" {
		t.Errorf("said %q", said)
	}
}
