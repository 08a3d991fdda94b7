package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/fleet"
	"github.com/gcdoctor/gcdoctor/report"
)

func newFleetCmd(e *env) *cobra.Command {
	var rf reportFlags
	var o fleet.Options
	var ff fleet.Flags
	var do fleet.DrillOptions
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
			if err := ff.Parse(&o, &do); err != nil {
				return &usageError{err}
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
			if do.Top > 0 {
				if do.Dir == "" {
					do.Dir = "gcdoctor-fleet-" + time.Now().Format("20060102-150405")
				}
				do.Diagnose = fleet.AttachDiagnose(ff.Seconds, version())
				if r.Drill, err = e.drill(ctx, r, o, do); err != nil {
					e.sayf("drill-down: %v\n", err)
				}
			}
			doc := &report.Fleet{Report: r, Top: ff.Top}
			if err := emitDoc(e, cmd, report.FleetFormats, doc, &rf, ""); err != nil {
				return err
			}
			return rf.failOnExit(r.FailOn)
		},
	}
	cmd.Flags().StringVar(&o.Prometheus, "prometheus", "", "base `URL` of the Prometheus HTTP API (Prometheus, Thanos, Mimir, VictoriaMetrics)")
	cmd.Flags().StringVar(&o.Match, "match", "", "label matchers that select the services, e.g. 'job=~\"api.*\",env=\"prod\"' (default: every target)")
	cmd.Flags().StringVar(&ff.Range, "range", "1h", "the window the figures are averaged over, e.g. 30m, 6h, 1d")
	cmd.Flags().StringVar(&ff.End, "end", "", "when the window ends: RFC 3339 or Unix seconds (default: now)")
	cmd.Flags().IntVar(&ff.Top, "top", 10, "how many of the costliest instances the report lists and details")
	cmd.Flags().StringVar(&ff.Budget, "budget", "", "memory budget per instance for the tuning advice, e.g. 2GiB (default: the GOMEMLIMIT in force)")
	cmd.Flags().IntVar(&o.MaxInstances, "max-instances", fleet.DefaultMaxInstances, "analyse at most this many instances, the costliest")
	cmd.Flags().DurationVar(&o.QueryTimeout, "timeout", fleet.DefaultQueryTimeout, "time limit of each query")
	cmd.Flags().IntVar(&do.Top, "drill", 0, "diagnose this many of the costliest instances from their /debug/pprof, as gcdoctor doctor URL does")
	cmd.Flags().StringVar(&ff.Ports, "pprof-port", "", "the port of /debug/pprof for --drill: PORT for all, or METRICS=PPROF pairs such as 9100=6060 (default: the metrics port)")
	cmd.Flags().IntVar(&do.Parallel, "drill-parallel", 4, "diagnoses run at once")
	cmd.Flags().DurationVar(&do.Timeout, "drill-timeout", 2*time.Minute, "time limit of each diagnosis")
	cmd.Flags().IntVar(&ff.Seconds, "seconds", 5, "trace length of each diagnosis (0: no trace)")
	cmd.Flags().StringVar(&do.Dir, "out", "", "directory for the drilled instances' evidence (default gcdoctor-fleet-TIME)")
	registerFormats(&rf, cmd, report.FleetFormats, true)
	return cmd
}

// drill diagnoses the costliest instances with a progress line; what
// fails is listed in the report.
func (e *env) drill(ctx context.Context, r *fleet.Report, conn fleet.Options, do fleet.DrillOptions) ([]*fleet.DrillResult, error) {
	st := e.status("drill-down", 0)
	defer st.Done()
	do.Progress = fleet.SayProgress(st.Say)
	res, err := fleet.Drill(ctx, r, do, conn)
	for _, d := range res {
		if d.Err != "" {
			e.sayf("drill-down of %s %s: %s\n", d.Job, d.Instance, d.Err)
		}
	}
	return res, err
}
