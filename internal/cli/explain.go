package cli

import (
	"fmt"
	goversion "go/version"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/diagnose"
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
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if len(args) == 0 {
				for _, r := range diagnose.Rules() {
					fmt.Fprintf(out, "%-24s %-8s %s\n", r.ID, r.Severity, r.Title)
				}
				return nil
			}
			r, ok := diagnose.Lookup(strings.ToLower(args[0]))
			if !ok {
				return &usageError{fmt.Errorf("no rule %q; 'gcdoctor explain' lists them", args[0])}
			}
			fmt.Fprint(out, r.Markdown())
			return nil
		},
	}
}

func validGoVersion(v string) bool { return goversion.IsValid(v) }

// goMinor returns the minor version of a valid "go1.N[.P]".
func goMinor(v string) int {
	n := 0
	for _, c := range strings.TrimPrefix(goversion.Lang(v), "go1.") {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
