package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
)

func newDoctorCmd(e *env) *cobra.Command {
	var rf reportFlags
	var df diagFlags
	var source []string
	var dir, out, budget, goal string
	var seconds int
	cmd := &cobra.Command{
		Use:     "doctor BUNDLE | URL | -- CMD [ARGS...]",
		Short:   "One diagnosis from all the evidence there is, and what to do first",
		Long:    longHelp("doctor"),
		Example: examples("doctor"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if err := df.validate(); err != nil {
				return err
			}
			if seconds < 0 || seconds > collect.MaxTraceSeconds {
				return &usageError{fmt.Errorf("--seconds must be between 0 and %d", collect.MaxTraceSeconds)}
			}
			tr, err := diagnose.TuneFlags(goal, budget)
			if err != nil {
				return &usageError{err}
			}
			if len(args) == 0 {
				return &usageError{errors.New("give a bundle, a URL, or -- and a program to run")}
			}
			opt := e.evidenceOptions(evidence.All, &df)
			// Every cycle is kept for the pacer model and the charts; JSON
			// lists them only with --cycles.
			opt.KeepCycles = true
			opt.Source, opt.Dir, opt.Lint = source, dir, true
			spec := collect.Spec{Stdin: e.stdin, Stdout: cmd.OutOrStdout(), Stderr: e.stderr, Signals: true, ToolVersion: version()}
			set, exit, err := evidence.Gather(cmd.Context(), args, cmd.ArgsLenAtDash() == 0, spec, out, seconds, opt)
			if err != nil {
				return e.loadFailed(set, err)
			}
			set.Input.Tune = tr
			if len(source) > 0 {
				set.Input.Recheck.SourceDir = dir
			}
			err = e.diagnoseSet(cmd, set, &rf, true)
			return programExit(e, exit, err)
		},
	}
	cmd.Flags().StringSliceVar(&source, "source", nil, "package patterns to check (gcdoctor lint, ranked by the profile) and to explain the profile's sites with escape analysis (e.g. ./...)")
	cmd.Flags().StringVar(&budget, "budget", "", "memory budget for the tuning advice, e.g. 2GiB (default: the cgroup memory limit a bundle recorded)")
	cmd.Flags().StringVar(&goal, "goal", "cpu", "what the tuning advice optimises: cpu or latency")
	cmd.Flags().StringVar(&dir, "dir", ".", "module directory for --source")
	cmd.Flags().StringVar(&out, "out", "", "bundle directory for what is collected (URL or CMD)")
	cmd.Flags().IntVar(&seconds, "seconds", 5, "trace length when attaching to a URL")
	rf.register(cmd)
	rf.registerCycles(cmd)
	df.register(cmd)
	return cmd
}
