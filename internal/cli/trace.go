package cli

import (
	"fmt"

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

// loadTrace reads an execution trace (a file or a bundle's), for the
// commands that use it alone.
func (e *env) loadTrace(cmd *cobra.Command, path string) (*evidence.Set, *exectrace.Result, error) {
	set, err := evidence.Load(cmd.Context(), []string{path}, e.evidenceOptions(evidence.Trace, &diagFlags{}))
	if err != nil {
		return nil, nil, e.loadFailed(set, err)
	}
	return set, set.Input.Trace.Result, nil
}

func newWorkersCmd(e *env) *cobra.Command {
	var group string
	var util float64
	var chanWork bool
	var rf reportFlags
	cmd := &cobra.Command{
		Use:   "workers TRACE",
		Short: "Recommend a worker count for a goroutine group from its measured time split",
		Long: `Computes how many workers a pool needs from an execution trace of it:
N = GOMAXPROCS × U × (1 + W/C), where C is the time the workers ran and W
the time they waited on work outside the CPU (syscalls, network, sleep).
Time spent runnable — waiting for a CPU — is not part of the work: it is
what too many workers cause. The derivation is at
` + report.DocsURL + `workers.md.

Without --group, the busiest group of the program's goroutines is sized.`,
		Example: examples("workers"),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if !(util > 0 && util <= 1) {
				return &usageError{fmt.Errorf("--utilization must be more than 0 and at most 1, not %v", util)}
			}
			set, res, err := e.loadTrace(cmd, args[0])
			if err != nil {
				return err
			}
			var g *exectrace.Group
			if group != "" {
				if g = res.Group(group); g == nil {
					return &usageError{fmt.Errorf("no goroutine group %q in %s; groups: %s", group, args[0], report.GroupNames(res))}
				}
			} else {
				for i := range res.Groups {
					x := &res.Groups[i]
					if !x.Runtime && (g == nil || x.RunningMS+x.RunnableMS+x.SyscallMS > g.RunningMS+g.RunnableMS+g.SyscallMS) {
						g = x
					}
				}
				if g == nil {
					return fmt.Errorf("%s: no goroutines of the program in the trace", args[0])
				}
			}
			wr := &report.Workers{Trace: args[0], Group: g, Partial: res.Partial,
				Recommendation: workers.Recommend(workers.FromGroup(g), res.Procs.GOMAXPROCS, workers.Options{Utilization: util, ChannelWaitIsWork: chanWork})}
			return e.failed(set, emitDoc(e, cmd, report.WorkersFormats, wr, &rf, ""))
		},
	}
	cmd.Flags().StringVar(&group, "group", "", "the goroutine group (start function) to size, e.g. main.worker")
	cmd.Flags().Float64Var(&util, "utilization", 1, "target share of the CPUs the pool may keep busy, in (0, 1]")
	cmd.Flags().BoolVar(&chanWork, "channel-wait-is-work", false, "count channel waits as waiting on outside work (for workers that wait on results, not on their own job queue)")
	registerFormats(&rf, cmd, report.WorkersFormats, false)
	return cmd
}
