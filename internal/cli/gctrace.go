package cli

import (
	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/evidence"
)

func newGctraceCmd(e *env) *cobra.Command {
	var rf reportFlags
	var df diagFlags
	cmd := &cobra.Command{
		Use:     "gctrace [FILE|-]...",
		Short:   "Diagnose GODEBUG=gctrace=1 output saved to files (or read from stdin)",
		Long:    longHelp("gctrace"),
		Example: examples("gctrace"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if err := df.validate(); err != nil {
				return err
			}
			opt := e.evidenceOptions(evidence.GCTrace, &df)
			opt.KeepCycles = rf.cycles
			set, err := evidence.Load(cmd.Context(), args, opt)
			if err != nil {
				return e.loadFailed(set, err)
			}
			return e.diagnoseSet(cmd, set, &rf, false)
		},
	}
	rf.register(cmd)
	df.register(cmd)
	rf.registerCycles(cmd)
	return cmd
}
