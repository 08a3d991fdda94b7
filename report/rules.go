package report

import (
	"fmt"
	"io"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/lint"
)

// RuleList writes every rule and source check, one line each, for
// gcdoctor explain.
func RuleList(w io.Writer) error {
	t := newTextWriter(w, TextOptions{Width: 80})
	t.printf("From the evidence (gctrace, profiles, traces):\n")
	for _, r := range diagnose.Rules() {
		t.printf("  %-22s %-8s %s\n", r.ID, r.Severity, r.Title)
	}
	t.printf("\nIn the source (gcdoctor lint):\n")
	for _, a := range lint.Analyzers() {
		t.printf("  %-22s %s\n", a.Name, lint.Title(a))
	}
	return t.err
}

// RuleDoc returns the documentation of a rule or source check as Markdown,
// and false when there is none of that ID.
func RuleDoc(id string) (string, bool) {
	id = strings.ToLower(id)
	if r, ok := diagnose.Lookup(id); ok {
		return r.Markdown(), true
	}
	if a := lint.Lookup(id); a != nil {
		return lintMarkdown(a), true
	}
	return "", false
}

// RuleCompletions lists the IDs gcdoctor explain takes, each with its
// title after a tab, as shell completion shows them.
func RuleCompletions() []string {
	var ids []string
	for _, r := range diagnose.Rules() {
		ids = append(ids, r.ID+"\t"+r.Title)
	}
	for _, a := range lint.Analyzers() {
		ids = append(ids, a.Name+"\t"+lint.Title(a))
	}
	return ids
}

// ExplainMarkdown checks gcdoctor explain's --format (text, markdown, or
// "" for text on a terminal and Markdown elsewhere) and reports whether
// the rule's documentation is printed as the Markdown it is.
func ExplainMarkdown(format string, toTerminal bool) (bool, error) {
	switch format {
	case "", "text", "markdown":
	default:
		return false, fmt.Errorf("--format must be text or markdown, not %q", format)
	}
	return format == "markdown" || format == "" && !toTerminal, nil
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

// Catalogue is docs/rules.md: the evidence rules, then the source checks,
// each from the documentation its code carries.
func Catalogue() string {
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
