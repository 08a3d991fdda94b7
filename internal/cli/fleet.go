package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
	"github.com/gcdoctor/gcdoctor/fleet"
	"github.com/gcdoctor/gcdoctor/internal/plural"
	"github.com/gcdoctor/gcdoctor/pacer"
	"github.com/gcdoctor/gcdoctor/report"
)

// maxTop bounds --top: the tables are for people.
const maxTop = 1000

func newFleetCmd(e *env) *cobra.Command {
	var rf reportFlags
	var o fleet.Options
	var rangeFlag, endFlag, budget, ports, out string
	var top, drill, parallel, seconds int
	var drillTimeout time.Duration
	cmd := &cobra.Command{
		Use:     "fleet --prometheus URL [--match SELECTOR] [--range 1h] [--top N]",
		Short:   "The GC of every Go service Prometheus scrapes: cost per job and instance, findings, tuning",
		Long:    longHelp("fleet"),
		Example: examples("fleet"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if o.Prometheus == "" {
				return &usageError{errors.New("--prometheus URL is required")}
			}
			d, err := model.ParseDuration(rangeFlag)
			if err != nil || time.Duration(d) < fleet.MinRange || time.Duration(d) > fleet.MaxRange {
				return &usageError{fmt.Errorf("--range %q: want a duration between %s and %s, such as 1h", rangeFlag, fleet.RangeString(fleet.MinRange), fleet.RangeString(fleet.MaxRange))}
			}
			o.Range = time.Duration(d)
			if o.End, err = fleet.ParseEnd(endFlag); err != nil {
				return &usageError{fmt.Errorf("--end %v", err)}
			}
			if budget != "" {
				if o.Budget, err = pacer.ParseSize(budget); err != nil || o.Budget <= 0 {
					return &usageError{fmt.Errorf("--budget %q: want a positive size such as 2GiB", budget)}
				}
			}
			if top < 1 || top > maxTop {
				return &usageError{fmt.Errorf("--top must be between 1 and %d", maxTop)}
			}
			do := fleet.DrillOptions{Top: drill, Parallel: parallel, Timeout: drillTimeout, Dir: out}
			if err := o.Check(); err != nil {
				return &usageError{err}
			}
			if err := do.Check(); err != nil {
				return &usageError{err}
			}
			if seconds < 0 || seconds > collect.MaxTraceSeconds {
				return &usageError{fmt.Errorf("--seconds must be between 0 and %d", collect.MaxTraceSeconds)}
			}
			pm, err := fleet.ParsePorts(ports)
			if err != nil {
				return &usageError{fmt.Errorf("--pprof-port: %v", err)}
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			st := e.status("querying "+o.Prometheus, 0)
			o.Progress = func(done, total int) { st.Say(fmt.Sprintf("%d of %d queries", done, total)) }
			r, err := fleet.Analyze(ctx, o)
			st.Done()
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if drill > 0 {
				if do.Dir == "" {
					do.Dir = "gcdoctor-fleet-" + time.Now().Format("20060102-150405")
				}
				do.Ports = pm
				if r.Drill, err = e.drill(ctx, r, o, do, seconds); err != nil {
					e.sayf("drill-down: %v\n", err)
				}
			}
			doc := &report.Fleet{Report: r, Top: top}
			if err := emitDoc(e, cmd, report.FleetFormats, doc, &rf, ""); err != nil {
				return err
			}
			return fleetFailOn(r, &rf)
		},
	}
	cmd.Flags().StringVar(&o.Prometheus, "prometheus", "", "base `URL` of the Prometheus HTTP API (Prometheus, Thanos, Mimir, VictoriaMetrics)")
	cmd.Flags().StringVar(&o.Match, "match", "", "label matchers that select the services, e.g. 'job=~\"api.*\",env=\"prod\"' (default: every target)")
	cmd.Flags().StringVar(&rangeFlag, "range", "1h", "the window the figures are averaged over, e.g. 30m, 6h, 1d")
	cmd.Flags().StringVar(&endFlag, "end", "", "when the window ends: RFC 3339 or Unix seconds (default: now)")
	cmd.Flags().IntVar(&top, "top", 10, "how many of the costliest instances the report lists and details")
	cmd.Flags().StringVar(&budget, "budget", "", "memory budget per instance for the tuning advice, e.g. 2GiB (default: the GOMEMLIMIT in force)")
	cmd.Flags().IntVar(&o.MaxInstances, "max-instances", fleet.DefaultMaxInstances, "analyse at most this many instances, the costliest")
	cmd.Flags().DurationVar(&o.QueryTimeout, "timeout", fleet.DefaultQueryTimeout, "time limit of each query")
	cmd.Flags().IntVar(&drill, "drill", 0, "diagnose this many of the costliest instances from their /debug/pprof, as gcdoctor doctor URL does")
	cmd.Flags().StringVar(&ports, "pprof-port", "", "the port of /debug/pprof for --drill: PORT for all, or METRICS=PPROF pairs such as 9100=6060 (default: the metrics port)")
	cmd.Flags().IntVar(&parallel, "drill-parallel", 4, "diagnoses run at once")
	cmd.Flags().DurationVar(&drillTimeout, "drill-timeout", 2*time.Minute, "time limit of each diagnosis")
	cmd.Flags().IntVar(&seconds, "seconds", 5, "trace length of each diagnosis (0: no trace)")
	cmd.Flags().StringVar(&out, "out", "", "directory for the drilled instances' evidence (default gcdoctor-fleet-TIME)")
	registerFormats(&rf, cmd, report.FleetFormats, true)
	return cmd
}

// drill diagnoses the costliest instances as doctor URL does, with a
// progress line; what fails is listed in the report.
func (e *env) drill(ctx context.Context, r *fleet.Report, conn fleet.Options, do fleet.DrillOptions, seconds int) ([]*fleet.DrillResult, error) {
	st := e.status("drill-down", 0)
	defer st.Done()
	do.Progress = func(done, total int, current string) {
		msg := fmt.Sprintf("%d of %d diagnosed", done, total)
		if current != "" {
			msg += ", now " + current
		}
		st.Say(msg)
	}
	do.Diagnose = func(ctx context.Context, url, dir string) (*diagnose.Diagnosis, error) {
		opt := evidence.Options{Want: evidence.All, KeepCycles: true}
		set, err := evidence.Attach(ctx, url, evidence.AttachOptions{Out: dir, Seconds: seconds, ToolVersion: version()}, opt)
		if err != nil {
			return nil, err
		}
		d := diagnose.Diagnose(set.Input)
		d.Caveats = append(d.Caveats, set.Notes...)
		for _, f := range set.Failed {
			d.Caveats = append(d.Caveats, f.Error())
		}
		d.FirstActions = true
		return d, nil
	}
	res, err := fleet.Drill(ctx, r, do, conn)
	for _, d := range res {
		if d.Err != "" {
			e.sayf("drill-down of %s %s: %s\n", d.Job, d.Instance, d.Err)
		}
	}
	return res, err
}

// fleetFailOn returns the exit error --fail-on asks for when an instance
// has a finding severe enough.
func fleetFailOn(r *fleet.Report, f *reportFlags) error {
	if f.failOn == "" {
		return nil
	}
	limit, _ := diagnose.ParseSeverity(f.failOn)
	if n, ids := r.Severe(limit); n > 0 {
		return &exitError{code: ExitFailOn, err: fmt.Errorf("findings at or above %s on %s: %s", limit, plural.Count(n, "instance", "instances"), strings.Join(ids, ", "))}
	}
	return nil
}
