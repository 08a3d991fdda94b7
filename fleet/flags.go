package fleet

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
	"github.com/gcdoctor/gcdoctor/internal/plural"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// MaxTop bounds --top: the tables are for people.
const MaxTop = 1000

// Flags are gcdoctor fleet's values that Options and DrillOptions take
// parsed, in the spelling of the command line.
type Flags struct {
	Range, End, Budget string
	// Top is how many instances the report details; Seconds the trace
	// length of each drilled diagnosis.
	Top, Seconds int
	// Ports is --pprof-port (see ParsePorts).
	Ports string
}

// Parse fills o and do from f and checks all three, saying what is wrong
// in terms of the command's flags.
func (f *Flags) Parse(o *Options, do *DrillOptions) error {
	d, err := model.ParseDuration(f.Range)
	if err != nil || time.Duration(d) < MinRange || time.Duration(d) > MaxRange {
		return fmt.Errorf("--range %q: want a duration between %s and %s, such as 1h", f.Range, RangeString(MinRange), RangeString(MaxRange))
	}
	o.Range = time.Duration(d)
	if o.End, err = ParseEnd(f.End); err != nil {
		return fmt.Errorf("--end %v", err)
	}
	if f.Budget != "" {
		if o.Budget, err = pacer.ParseSize(f.Budget); err != nil || o.Budget <= 0 {
			return fmt.Errorf("--budget %q: want a positive size such as 2GiB", f.Budget)
		}
	}
	if f.Top < 1 || f.Top > MaxTop {
		return fmt.Errorf("--top must be between 1 and %d", MaxTop)
	}
	if err := o.Check(); err != nil {
		return err
	}
	if err := do.Check(); err != nil {
		return err
	}
	if f.Seconds < 0 || f.Seconds > collect.MaxTraceSeconds {
		return fmt.Errorf("--seconds must be between 0 and %d", collect.MaxTraceSeconds)
	}
	if do.Ports, err = ParsePorts(f.Ports); err != nil {
		return fmt.Errorf("--pprof-port: %v", err)
	}
	return nil
}

// AttachDiagnose returns a DrillOptions.Diagnose that diagnoses an
// instance as gcdoctor doctor URL does: profiles and a trace of seconds
// from its /debug/pprof into dir, with what could not be read among the
// caveats.
func AttachDiagnose(seconds int, toolVersion string) func(ctx context.Context, url, dir string) (*diagnose.Diagnosis, error) {
	return func(ctx context.Context, url, dir string) (*diagnose.Diagnosis, error) {
		opt := evidence.Options{Want: evidence.All, KeepCycles: true}
		set, err := evidence.Attach(ctx, url, evidence.AttachOptions{Out: dir, Seconds: seconds, ToolVersion: toolVersion}, opt)
		if err != nil {
			return nil, err
		}
		d := set.Diagnose()
		for _, f := range set.Failed {
			d.Caveats = append(d.Caveats, f.Error())
		}
		d.FirstActions = true
		return d, nil
	}
}

// FailOn returns the error --fail-on asks for when an instance has a
// finding at least as severe as limit, nil when none has.
func (r *Report) FailOn(limit diagnose.Severity) error {
	if n, ids := r.Severe(limit); n > 0 {
		return fmt.Errorf("findings at or above %s on %s: %s", limit, plural.Count(n, "instance", "instances"), strings.Join(ids, ", "))
	}
	return nil
}

// SayProgress returns a DrillOptions.Progress that tells say how far the
// drill-down has come, in a few words.
func SayProgress(say func(string)) func(done, total int, current string) {
	return func(done, total int, current string) {
		msg := fmt.Sprintf("%d of %d diagnosed", done, total)
		if current != "" {
			msg += ", now " + current
		}
		say(msg)
	}
}
