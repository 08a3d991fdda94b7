package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/evidence"
)

func newAttachCmd(e *env) *cobra.Command {
	var rf reportFlags
	var df diagFlags
	var out string
	var seconds, top int
	cmd := &cobra.Command{
		Use:     "attach URL",
		Short:   "Collect profiles and a trace from a running program's /debug/pprof and diagnose them",
		Long:    longHelp("attach"),
		Example: examples("attach"),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if err := df.validate(); err != nil {
				return err
			}
			if top < 1 || top > 1000 {
				return &usageError{fmt.Errorf("--top must be between 1 and 1000")}
			}
			if seconds < 0 || seconds > collect.MaxTraceSeconds {
				return &usageError{fmt.Errorf("--seconds must be between 0 and %d", collect.MaxTraceSeconds)}
			}
			return e.runAttach(cmd, args[0], out, seconds, top, &rf, &df)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "bundle directory to create (default gcdoctor-attach-DATE-TIME)")
	cmd.Flags().IntVar(&seconds, "seconds", 5, "length of the execution trace; 0 skips it")
	cmd.Flags().IntVar(&top, "top", 10, "how many allocation sites to rank")
	rf.register(cmd)
	df.register(cmd)
	return cmd
}

func (e *env) runAttach(cmd *cobra.Command, url, out string, seconds, top int, rf *reportFlags, df *diagFlags) error {
	opt := e.evidenceOptions(evidence.All, df)
	opt.Top = top
	set, err := evidence.AttachURL(cmd.Context(), url, evidence.AttachOptions{Out: out, Seconds: seconds, ToolVersion: version()}, "gcdoctor-attach-", opt)
	if err != nil {
		return err
	}
	return e.diagnoseSet(cmd, set, rf, false)
}
