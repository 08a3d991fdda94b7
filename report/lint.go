package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gcdoctor/gcdoctor/lint"
)

// LintSchemaVersion is the version of the document LintJSON writes.
const LintSchemaVersion = 1

// LintJSON writes a lint result as one JSON document (docs/json.md).
func LintJSON(w io.Writer, r *lint.Result, toolVersion string) error {
	doc := struct {
		SchemaVersion int                 `json:"schema_version"`
		Tool          string              `json:"tool"`
		ToolVersion   string              `json:"tool_version,omitempty"`
		Diagnostics   []lint.Diagnostic   `json:"diagnostics"`
		Broken        []lint.PackageError `json:"broken_packages"`
		Fixed         []string            `json:"fixed_files"`
		Skipped       []lint.SkippedFile  `json:"skipped_files,omitempty"`
	}{LintSchemaVersion, "gcdoctor", toolVersion, nonNil(r.Diagnostics), nonNil(r.Broken), nonNil(r.Fixed), r.Skipped}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// LintText writes a lint result the way vet does, one finding per line as
// file:line:col, then a count per rule; paths are shown relative to dir.
func LintText(w io.Writer, r *lint.Result, dir string, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	t := newTextWriter(w, opt)
	for _, b := range r.Broken {
		t.printf("%s %s\n", t.style(ansiYellow, "does not compile:"), b.Package)
		var errs []string
		for _, e := range b.Errors {
			if !strings.HasPrefix(e, "-: #") { // the go command's header, repeated
				errs = append(errs, e)
			}
		}
		for i, e := range errs {
			if i == 3 {
				t.printf("    … %d more\n", len(errs)-3)
				break
			}
			t.printf("    %s\n", e)
		}
	}
	byRule := map[string]int{}
	for _, d := range r.Diagnostics {
		byRule[d.Rule]++
		file := d.File
		if rel, err := filepath.Rel(dir, file); err == nil && len(rel) < len(file) {
			file = rel
		}
		pos := fmt.Sprintf("%s:%d:%d:", file, d.Line, d.Column)
		tag := t.style(ansiCyan, "["+d.Rule+"]")
		fix := ""
		if len(d.SuggestedFixes) > 0 {
			fix = " " + t.style(ansiDim, "(fixable)")
		}
		t.wrap(pos+" ", "    ", tag+" "+d.Message+fix)
	}
	for _, f := range r.Fixed {
		t.printf("fixed %s\n", f)
	}
	if len(r.Diagnostics) == 0 {
		t.printf("No findings.\n")
		return t.err
	}
	rules := make([]string, 0, len(byRule))
	for k := range byRule {
		rules = append(rules, k)
	}
	sort.Strings(rules)
	t.printf("\n%s\n", t.style(ansiBold, fmt.Sprintf("%s:", plural(len(r.Diagnostics), "finding"))))
	for _, k := range rules {
		title := ""
		if a := lint.Lookup(k); a != nil {
			title = lint.Title(a)
		}
		t.printf("  %4d  %-18s %s\n", byRule[k], k, truncate(title, max(t.opt.Width-28, 10)))
	}
	t.wrap("  ", "  ", t.style(ansiDim, "gcdoctor explain RULE says why each matters and how to fix it; --fix applies the mechanical fixes."))
	return t.err
}

// maxSkipped bounds the lines LintSkipped returns; JSON lists them all.
const maxSkipped = 20

// LintSkipped says, one line per file, which fixes --fix left out and why,
// file names relative to dir as the text report names them.
func LintSkipped(skipped []lint.SkippedFile, dir string) []string {
	var out []string
	for i, s := range skipped {
		if i == maxSkipped {
			out = append(out, fmt.Sprintf("… and %s with fixes not applied (--format json lists them all)", countOf(len(skipped)-i, "more file", "more files")))
			break
		}
		file := s.File
		if rel, err := filepath.Rel(dir, file); err == nil && len(rel) < len(file) {
			file = rel
		}
		out = append(out, fmt.Sprintf("%s: %s not applied: %s", file, countOf(s.Fixes, "fix", "fixes"), s.Reason))
	}
	return out
}
