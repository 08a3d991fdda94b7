package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/report"
)

func newExplainCmd(e *env) *cobra.Command {
	var format, color string
	var width int
	cmd := &cobra.Command{
		Use:     "explain [RULE-ID]",
		Short:   "Explain a rule: why it matters, how it is detected, what to do",
		Long:    longHelp("explain"),
		Example: examples("explain"),
		Args:    cobra.MaximumNArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return report.RuleCompletions(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			markdown, err := report.ExplainMarkdown(format, isTerminal(out))
			if err == nil {
				err = report.CheckColor(color)
			}
			if err == nil {
				err = report.CheckWidth(width, 20)
			}
			if err != nil {
				return &usageError{err}
			}
			if len(args) == 0 {
				return report.RuleList(out)
			}
			doc, ok := report.RuleDoc(args[0])
			if !ok {
				return &usageError{fmt.Errorf("no rule %q; 'gcdoctor explain' lists them", args[0])}
			}
			if markdown {
				_, err := fmt.Fprint(out, doc)
				return err
			}
			return report.MarkdownText(out, doc, report.TextOptions{Color: e.useColor(color, out), Width: width})
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "text or markdown (default: text on a terminal, else markdown)")
	cmd.Flags().StringVar(&color, "color", "auto", "colour the text: auto, always or never (NO_COLOR is honoured)")
	cmd.Flags().IntVar(&width, "width", 80, "wrap the text at this many columns")
	return cmd
}
