package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/lint"
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
			switch format {
			case "", "text", "markdown":
			default:
				return &usageError{fmt.Errorf("--format must be text or markdown, not %q", format)}
			}
			switch color {
			case "auto", "always", "never":
			default:
				return &usageError{fmt.Errorf("--color must be auto, always or never, not %q", color)}
			}
			if width < 20 || width > 1000 {
				return &usageError{fmt.Errorf("--width must be between 20 and 1000")}
			}
			out := cmd.OutOrStdout()
			if len(args) == 0 {
				return report.RuleList(out)
			}
			doc, ok := report.RuleDoc(args[0])
			if !ok {
				return &usageError{fmt.Errorf("no rule %q; 'gcdoctor explain' lists them", args[0])}
			}
			if format == "markdown" || format == "" && !isTerminal(out) {
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
