package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/evidence"
)

func newHeapCmd(e *env) *cobra.Command {
	var rf reportFlags
	var df diagFlags
	var source []string
	var dir string
	var top int
	var ops int64
	var user []string
	cmd := &cobra.Command{
		Use:     "heap PROFILE|BUNDLE",
		Short:   "Find the lines that allocate the garbage, and why they allocate",
		Long:    longHelp("heap"),
		Example: examples("heap"),
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
			opt := e.evidenceOptions(evidence.Heap, &df)
			opt.Source, opt.Dir, opt.Top, opt.Ops, opt.User = source, dir, top, ops, user
			set, err := evidence.Load(cmd.Context(), args, opt)
			if err != nil {
				return e.loadFailed(set, err)
			}
			if len(source) > 0 {
				set.Input.Recheck.SourceDir = dir
			}
			return e.diagnoseSet(cmd, set, &rf, false)
		},
	}
	cmd.Flags().StringSliceVar(&source, "source", nil, "package patterns to run escape analysis on (e.g. ./...), joined to the sites by file:line")
	cmd.Flags().StringVar(&dir, "dir", ".", "module directory for --source")
	cmd.Flags().IntVar(&top, "top", 10, "how many sites to rank")
	cmd.Flags().Int64Var(&ops, "ops", 0, "requests or operations the profile covers, for bytes per op")
	cmd.Flags().StringSliceVar(&user, "user", nil, "module or package paths that are your code (default: everything outside the standard library and golang.org/x)")
	rf.register(cmd)
	df.register(cmd)
	return cmd
}
