package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/tools/go/analysis"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/lint"
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
				fmt.Fprintf(out, "From the evidence (gctrace, profiles):\n")
				for _, r := range diagnose.Rules() {
					fmt.Fprintf(out, "  %-22s %-8s %s\n", r.ID, r.Severity, r.Title)
				}
				fmt.Fprintf(out, "\nIn the source (gcdoctor lint):\n")
				for _, a := range lint.Analyzers() {
					fmt.Fprintf(out, "  %-22s %s\n", a.Name, lint.Title(a))
				}
				return nil
			}
			id := strings.ToLower(args[0])
			if r, ok := diagnose.Lookup(id); ok {
				fmt.Fprint(out, r.Markdown())
				return nil
			}
			if a := lint.Lookup(id); a != nil {
				fmt.Fprint(out, lintMarkdown(a))
				return nil
			}
			return &usageError{fmt.Errorf("no rule %q; 'gcdoctor explain' lists them", args[0])}
		},
	}
}

// lintMarkdown renders a source check's documentation as a catalogue
// section: the analyzer's Doc is its doc.md, whose first line is
// "name: title".
func lintMarkdown(a *analysis.Analyzer) string {
	body := a.Doc
	if _, rest, ok := strings.Cut(body, "\n"); ok {
		body = rest
	}
	// The doc's own sections become subsections of the rule.
	body = strings.ReplaceAll("\n"+strings.TrimSpace(body), "\n## ", "\n### ")
	return fmt.Sprintf("## %s\n\n**%s**  \nSource check · runs in `gcdoctor lint` and `go vet -vettool=gcdoctor-vet`\n%s\n\n", a.Name, lint.Title(a), body)
}

// catalogue is docs/rules.md: the evidence rules, then the source checks.
func catalogue() string {
	var b strings.Builder
	b.WriteString(diagnose.Catalogue())
	b.WriteString("\n# Source checks (gcdoctor lint)\n\n")
	b.WriteString("These run on code, not on evidence: `gcdoctor lint`, or under go vet with\n")
	b.WriteString("`go vet -vettool=$(command -v gcdoctor-vet)`. Each check's ID is its analyzer\n")
	b.WriteString("name.\n\n| ID | title |\n|---|---|\n")
	for _, a := range lint.Analyzers() {
		fmt.Fprintf(&b, "| [%s](#%s) | %s |\n", a.Name, a.Name, lint.Title(a))
	}
	b.WriteString("\n")
	for _, a := range lint.Analyzers() {
		b.WriteString(lintMarkdown(a))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
