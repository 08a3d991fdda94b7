package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/internal/sarif"
)

// minSARIFSiteShare leaves out the sites that carry less than 1% of the
// profile's bytes: annotations in code review for lines that cost nothing
// would only be noise.
const minSARIFSiteShare = 0.01

// allocSiteRule is the SARIF rule of a ranked allocation site that no
// finding covers: not a problem by itself, but where the bytes come from.
var allocSiteRule = sarif.Rule{
	ID:               "alloc-site",
	Name:             "alloc-site",
	ShortDescription: sarif.Message{Text: "A top allocation site of the heap profile"},
	FullDescription: sarif.Message{Text: "A line of the program's own code that the heap profile charges with allocated bytes, " +
		"ranked among the top sites. It is not a finding by itself: it shows where the garbage the collector handles comes from."},
	Help: sarif.Message{Text: "Allocation drives how often the GC runs. Reduce the bytes allocated at the top sites " +
		"(reuse buffers, preallocate, avoid conversions) and take the profile again to compare."},
	HelpURI:              "https://github.com/gcdoctor/gcdoctor/blob/main/docs/reports.md#sarif",
	DefaultConfiguration: &sarif.Configuration{Level: "note"},
}

// SARIF writes the findings located in Go source, and the ranked
// allocation sites, as a SARIF 2.1.0 log for GitHub code scanning. Findings
// about log lines or a trace have no place in the code and are left out.
// File URIs are relative to the current directory, which code scanning
// takes for the root of the checkout: files outside it (the standard
// library, the module cache) are left out, and a path that starts with
// the module path of the go.mod there (a -trimpath build) is made relative
// to the module.
func SARIF(w io.Writer, d *diagnose.Diagnosis, toolVersion string) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	mod := ""
	if data, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
		mod = modfile.ModulePath(data)
	}
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		return err == nil
	}
	return sarifLog(d, toolVersion, sarifPaths{root: root, module: mod, exists: exists}).Write(w)
}

// sarifPaths turns the file names of the evidence into URIs relative to
// the checkout.
type sarifPaths struct {
	root   string // absolute
	module string // the module path of root's go.mod, "" when none
	// exists reports whether a slash-separated path relative to root is a
	// file of the checkout.
	exists func(rel string) bool
}

// uri returns the relative URI of a Go source file of the checkout, and
// false for anything else.
func (p sarifPaths) uri(file string) (string, bool) {
	if !strings.HasSuffix(file, ".go") {
		return "", false
	}
	var rel string
	switch {
	case filepath.IsAbs(file) || strings.HasPrefix(file, "/"):
		r, err := filepath.Rel(p.root, filepath.FromSlash(file))
		if err != nil {
			return "", false
		}
		rel = filepath.ToSlash(r)
	case p.module != "" && strings.HasPrefix(filepath.ToSlash(file), p.module+"/"):
		rel = strings.TrimPrefix(filepath.ToSlash(file), p.module+"/")
	default:
		rel = filepath.ToSlash(filepath.Clean(file))
	}
	if rel == ".." || strings.HasPrefix(rel, "../") || (p.exists != nil && !p.exists(rel)) {
		return "", false
	}
	return sarif.URI(rel), true
}

func sarifLevel(s diagnose.Severity) string {
	switch s {
	case diagnose.Critical:
		return "error"
	case diagnose.Warning:
		return "warning"
	}
	return "note"
}

func sarifLog(d *diagnose.Diagnosis, toolVersion string, paths sarifPaths) *sarif.Log {
	var rules []sarif.Rule
	index := map[string]int{}
	for _, r := range diagnose.Rules() {
		index[r.ID] = len(rules)
		rules = append(rules, sarif.Rule{
			ID:                   r.ID,
			Name:                 r.ID,
			ShortDescription:     sarif.Message{Text: r.Title},
			FullDescription:      sarif.Message{Text: oneLine(strings.TrimSpace(r.Rationale))},
			Help:                 sarif.Message{Text: r.Markdown(), Markdown: r.Markdown()},
			HelpURI:              "https://github.com/gcdoctor/gcdoctor/blob/main/docs/rules.md#" + r.ID,
			DefaultConfiguration: &sarif.Configuration{Level: sarifLevel(r.Severity)},
		})
	}
	index[allocSiteRule.ID] = len(rules)
	rules = append(rules, allocSiteRule)

	var results []sarif.Result
	covered := map[string]bool{} // "uri:line" of the findings
	for _, f := range d.Findings {
		var locs []sarif.Location
		for _, l := range f.Where {
			uri, ok := paths.uri(l.File)
			if !ok || l.Line <= 0 {
				continue
			}
			reg := sarif.Region{StartLine: l.Line}
			if l.EndLine > l.Line {
				reg.EndLine = l.EndLine
			}
			locs = append(locs, sarif.Location{PhysicalLocation: sarif.PhysicalLocation{ArtifactLocation: sarif.ArtifactLocation{URI: uri}, Region: reg}})
			covered[fmt.Sprintf("%s:%d", uri, l.Line)] = true
		}
		if len(locs) == 0 {
			continue
		}
		i, ok := index[f.ID]
		if !ok {
			// A rule registered after the catalogue was read cannot be:
			// keep the result valid all the same.
			i = -1
		}
		msg := f.Title + ". " + f.Message
		if f.Remedy != "" {
			msg += " Fix: " + f.Remedy
		}
		results = append(results, sarif.Result{RuleID: f.ID, RuleIndex: i, Level: sarifLevel(f.Severity),
			Message: sarif.Message{Text: oneLine(msg)}, Locations: locs})
	}
	for _, s := range d.HeapSites() {
		uri, ok := paths.uri(s.File)
		if !ok || s.Line <= 0 || covered[fmt.Sprintf("%s:%d", uri, s.Line)] || s.Share < minSARIFSiteShare {
			continue
		}
		msg := fmt.Sprintf("Allocation site #%d of the heap profile: %s allocates %s (%.1f %% of the profile's bytes) in %s objects, %.0f %% short-lived.",
			s.Rank, s.Function, fmtBytes(s.AllocBytes), s.Share*100, countStr(s.AllocObjects), s.ShortLived()*100)
		if s.Via != "" {
			msg += " The allocation is made by " + s.Via + "."
		}
		if r := s.EscapeReason(); r != "" {
			msg += " Escape analysis: " + r + "."
		}
		results = append(results, sarif.Result{RuleID: allocSiteRule.ID, RuleIndex: index[allocSiteRule.ID], Level: "note",
			Message: sarif.Message{Text: oneLine(msg)},
			Locations: []sarif.Location{{PhysicalLocation: sarif.PhysicalLocation{
				ArtifactLocation: sarif.ArtifactLocation{URI: uri}, Region: sarif.Region{StartLine: s.Line}}}}})
	}
	return sarif.NewLog(toolVersion, rules, results)
}
