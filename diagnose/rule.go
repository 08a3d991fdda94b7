package diagnose

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

// Rule is one diagnosis rule with its documentation. The documentation is
// the user manual: `gcdoctor explain ID` prints it and docs/rules.md is
// generated from it.
type Rule struct {
	ID       string   // stable identifier used in JSON, --fail-on and explain
	Title    string   // short statement of the problem
	Severity Severity // the usual severity; a finding may differ with the evidence
	// Evidence names what the rule reads, e.g. "gctrace".
	Evidence string
	// Why it costs the program, how it is detected (with thresholds), what
	// to do, and how to check the fix worked. Markdown-light prose.
	Rationale, Detection, Remedy, Verify string
	// Versions says how the advice depends on the Go version.
	Versions string
	// Rank orders findings of equal severity: lower comes first. It states
	// which problem to look at first when several are present (a pinned
	// heap explains high GC CPU, not the other way round).
	Rank int

	// Judge is how a rule registered from outside the package (Register)
	// judges the evidence, its own kind among Input.Extensions included.
	Judge func(in *Input) []*Finding

	// check judges one gctrace segment (process); checkAll judges the
	// evidence as a whole and may report several findings.
	check    func(*evidenceView, *gctrace.Segment) *Finding
	checkAll func(*evidenceView) []*Finding
	// live judges what a running program served about its own GC over a
	// window (Input.Live), by the same thresholds as check.
	live func(*evidenceView, *liveView) *Finding
	// file is the source file that registered the rule: each rule lives
	// in rule_ID.go (with - as _), which the tests hold the package to.
	file string
}

var rules []*Rule

// register adds a rule; rules are registered from their own files so that
// adding a rule touches no shared list.
func register(r *Rule) { registerFrom(r, 2) }

// Register adds a rule that a package outside diagnose judges with
// Rule.Judge, for evidence it adds itself (see Extension). It panics, as a
// broken invariant, when the rule has no Judge, lacks documentation or
// repeats an ID.
func Register(r *Rule) {
	if r.Judge == nil {
		panic("diagnose: rule " + r.ID + " has no Judge")
	}
	registerFrom(r, 2)
}

func registerFrom(r *Rule, skip int) {
	if r.ID == "" || r.Title == "" || r.Rationale == "" || r.Detection == "" || r.Remedy == "" || r.Verify == "" {
		panic("diagnose: rule " + r.ID + " is missing documentation")
	}
	for _, o := range rules {
		if o.ID == r.ID {
			panic("diagnose: duplicate rule " + r.ID)
		}
	}
	if _, file, _, ok := runtime.Caller(skip); ok {
		r.file = filepath.Base(file)
	}
	rules = append(rules, r)
	slices.SortFunc(rules, func(a, b *Rule) int { return strings.Compare(a.ID, b.ID) })
}

// Rules returns every rule, sorted by ID.
func Rules() []*Rule { return slices.Clone(rules) }

// Lookup returns the rule with the given ID.
func Lookup(id string) (*Rule, bool) {
	for _, r := range rules {
		if r.ID == id {
			return r, true
		}
	}
	return nil, false
}

// Markdown renders the rule's documentation as a Markdown section.
func (r *Rule) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n**%s**  \n", r.ID, r.Title)
	fmt.Fprintf(&b, "Severity: %s · Evidence: %s\n\n", r.Severity, r.Evidence)
	sec := func(name, text string) {
		if text != "" {
			fmt.Fprintf(&b, "**%s.** %s\n\n", name, strings.TrimSpace(text))
		}
	}
	sec("Why it matters", r.Rationale)
	sec("How it is detected", r.Detection)
	sec("What to do", r.Remedy)
	sec("How to verify", r.Verify)
	sec("Go versions", r.Versions)
	return b.String()
}

// Catalogue renders every rule as the Markdown of docs/rules.md.
func Catalogue() string {
	var b strings.Builder
	b.WriteString("# gcdoctor rules\n\n")
	b.WriteString("Every finding gcdoctor reports comes from one of these rules. The ID is\n")
	b.WriteString("stable: use it with `gcdoctor explain ID`, in `--json` output\n")
	b.WriteString("(`findings[].id`) and to decide what fails a CI job.\n\n")
	b.WriteString("This file is generated from the rules' own documentation\n")
	b.WriteString("(`go test ./internal/cli -run TestCatalogue -update`).\n\n")
	b.WriteString("| ID | title | severity | evidence |\n|---|---|---|---|\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s |\n", r.ID, r.ID, r.Title, r.Severity, r.Evidence)
	}
	b.WriteString("\n")
	for _, r := range rules {
		b.WriteString(r.Markdown())
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
