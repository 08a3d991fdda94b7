package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/lint"
	"github.com/gcdoctor/gcdoctor/report"
)

func newExplainCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "explain [RULE-ID]",
		Short: "Explain a rule: why it matters, how it is detected, what to do",
		Long:  "Prints the documentation of a rule, or lists every rule when no ID is given.",
		Args:  cobra.MaximumNArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var ids []string
			for _, r := range diagnose.Rules() {
				ids = append(ids, r.ID+"\t"+r.Title)
			}
			for _, a := range lint.Analyzers() {
				ids = append(ids, a.Name+"\t"+lint.Title(a))
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if len(args) == 0 {
				return report.RuleList(out)
			}
			doc, ok := report.RuleDoc(args[0])
			if !ok {
				return &usageError{fmt.Errorf("no rule %q; 'gcdoctor explain' lists them", args[0])}
			}
			_, err := fmt.Fprint(out, doc)
			return err
		},
	}
}
