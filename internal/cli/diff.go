package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/report"
)

// registerCompare adds the output flags of a comparison (diff, sweep,
// bench): no --fail-on, since a comparison has no findings.
func (f *reportFlags) registerCompare(cmd *cobra.Command) {
	registerFormats(f, cmd, report.CompareFormats, false)
}

func newDiffCmd(e *env) *cobra.Command {
	var cf reportFlags
	cmd := &cobra.Command{
		Use:     "diff BEFORE AFTER",
		Short:   "Compare benchmark results or GC figures before and after a change",
		Long:    longHelp("diff"),
		Example: examples("diff"),
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.validate(); err != nil {
				return err
			}
			return e.runDiff(cmd, args[0], args[1], &cf)
		},
	}
	cf.registerCompare(cmd)
	return cmd
}

func (e *env) runDiff(cmd *cobra.Command, beforeSpec, afterSpec string, cf *reportFlags) error {
	before, err := compare.Load(beforeSpec)
	if err != nil {
		return err
	}
	after, err := compare.Load(afterSpec)
	if err != nil {
		return err
	}
	t, err := compare.Diff(before, after, [2]string{"before", "after"})
	if err != nil {
		return err
	}
	t.Title = fmt.Sprintf("%s vs %s", before.Describe(beforeSpec), after.Describe(afterSpec))
	return emitDoc(e, cmd, report.CompareFormats, t, cf, "")
}
