package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/evidence"
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/report"
	"github.com/gcdoctor/gcdoctor/workers"
)

func newTraceCmd(e *env) *cobra.Command {
	var rf reportFlags
	var df diagFlags
	cmd := &cobra.Command{
		Use:     "trace TRACE",
		Short:   "Diagnose a runtime execution trace: GC pauses, MMU, goroutine groups",
		Long:    longHelp("trace"),
		Example: examples("trace"),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if err := df.validate(); err != nil {
				return err
			}
			set, err := evidence.Load(cmd.Context(), args, e.evidenceOptions(evidence.Trace, &df))
			if err != nil {
				return e.loadFailed(set, err)
			}
			return e.diagnoseSet(cmd, set, &rf, false)
		},
	}
	rf.register(cmd)
	df.register(cmd)
	return cmd
}

func newWorkersCmd(e *env) *cobra.Command {
	var group string
	var opt workers.Options
	var verify bool
	var vs workers.VerifySpec
	var rf reportFlags
	cmd := &cobra.Command{
		Use:     "workers [--verify --size-env NAME] TRACE [-- CMD [ARGS...]]",
		Short:   "Recommend a worker count for a goroutine group from its measured time split",
		Long:    longHelp("workers"),
		Example: examples("workers"),
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if err := opt.Check(); err != nil {
				return &usageError{err}
			}
			if vs.Command = args[1:]; verify != (len(args) > 1) || (verify && cmd.ArgsLenAtDash() != 1) {
				return &usageError{errors.New("give one TRACE, and with --verify the program after --, as in: gcdoctor workers --verify --size-env WORKERS trace.out -- ./prog")}
			}
			if err := vs.Check(); verify && err != nil {
				return &usageError{err}
			}
			set, err := evidence.Load(cmd.Context(), args[:1], e.evidenceOptions(evidence.Trace, &diagFlags{}))
			if err != nil {
				return e.loadFailed(set, err)
			}
			res := set.Input.Trace.Result
			g, err := res.Sized(group)
			if errors.Is(err, exectrace.ErrNoGroup) {
				return &usageError{fmt.Errorf("%s: %v", args[0], err)}
			} else if err != nil {
				return fmt.Errorf("%s: %v", args[0], err)
			}
			wr := &report.Workers{Trace: args[0], Group: g, Partial: res.Partial,
				Recommendation: workers.Recommend(workers.FromGroup(g), res.Procs.GOMAXPROCS, opt)}
			if verify {
				vs.Recommended, vs.Current, vs.Progress, vs.ToolVersion = wr.Recommendation.Workers, g.PeakLive, e.status("workers", 0).Run, version()
				if wr.Verify, err = e.verifyWorkers(cmd, vs); err != nil {
					return err
				}
			}
			return e.failed(set, emitDoc(e, cmd, report.WorkersFormats, wr, &rf, ""))
		},
	}
	cmd.Flags().StringVar(&group, "group", "", "the goroutine group (start function) to size, e.g. main.worker")
	cmd.Flags().Float64Var(&opt.Utilization, "utilization", 1, "target share of the CPUs the pool may keep busy, in (0, 1]")
	cmd.Flags().BoolVar(&opt.ChannelWaitIsWork, "channel-wait-is-work", false, "count channel waits as waiting on outside work (for workers that wait on results, not on their own job queue)")
	cmd.Flags().BoolVar(&verify, "verify", false, "run CMD (after --) at the recommended size and its neighbours, and compare them")
	cmd.Flags().StringVar(&vs.SizeEnv, "size-env", "", "with --verify: the environment variable that tells CMD its worker count ({N} in ARGS is replaced too)")
	cmd.Flags().IntSliceVar(&vs.Sizes, "sizes", nil, "with --verify: the worker counts to run, instead of N/2, N, 2N and the traced size")
	cmd.Flags().IntVar(&vs.Count, "count", workers.DefaultVerifyCount, "with --verify: runs per size")
	registerFormats(&rf, cmd, report.WorkersFormats, false)
	return cmd
}

// verifyWorkers runs the program at the sizes vs asks for; a size that
// failed is said on standard error and not run again.
func (e *env) verifyWorkers(cmd *cobra.Command, vs workers.VerifySpec) (*workers.Verification, error) {
	v, failures, err := workers.Verify(cmd.Context(), vs)
	for _, f := range failures {
		e.sayf("%s: %v (this size was not run again)\n", strings.Join(vs.Command, " "), f)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", strings.Join(vs.Command, " "), err)
	}
	return v, nil
}
