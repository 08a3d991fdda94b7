package diagnose

import (
	"fmt"
	"path/filepath"
)

// ruleLintHot is the rule that joins the source checks to the allocation
// profile.
const ruleLintHot = "lint-hot"

func init() {
	register(&Rule{
		ID: ruleLintHot, Title: "A source check fires on a line that allocates much", Severity: Warning, Rank: 24,
		Evidence: "gcdoctor lint + heap profile",
		Rationale: `A source check says what a line does wrong; the allocation profile says
whether it matters. The same time.After in a select loop is worth fixing
first when its line makes 40% of the program's garbage, and worth nothing
in code that runs once. Joining the two ranks the checks by what they cost
this program under this load.`,
		Detection: `A gcdoctor lint finding whose line the heap profile charges with ≥ 5% (and
≥ 1 MiB) of the allocated bytes (the bytes charged to the user's code, as
for the heap sites). When a heap rule already reports the line, the lint
finding is folded into it instead of being reported twice. A finding at a
call to a helper that allocates (a function returning a new buffer) is
charged what the helper allocated through the call, and folded into a heap
rule's finding about the helper's allocation.`,
		Remedy: `The check's own advice; gcdoctor lint --fix applies it where the change is
mechanical.`,
		Verify: `gcdoctor lint no longer reports the line, and a new heap profile under the
same load no longer ranks it.`,
		checkAll: func(c *evidenceView) []*Finding {
			var out []*Finding
			for _, l := range c.lint {
				if !l.Weighed || l.Share < minSiteShare || l.Bytes < minSiteBytes {
					continue
				}
				f := &Finding{Severity: Warning, score: l.Share}
				if l.Share < 0.2 {
					f.Severity = Info
				}
				where := fmt.Sprintf("%s:%d", filepath.Base(l.File), l.Line)
				f.Message = fmt.Sprintf("%s: %s [%s]. The heap profile charges this line with %s of the allocated bytes (%s, site #%d).",
					where, l.Message, l.Rule, pct(l.Share), bytesStr(l.Bytes), l.HeapRank)
				ranked := fmt.Sprintf("now #%d, %s of the bytes", l.HeapRank, pct(l.Share))
				if l.Through {
					f.Message = fmt.Sprintf("%s: %s [%s]. The heap profile charges what this line calls with %s of the allocated bytes (%s).",
						where, l.Message, l.Rule, pct(l.Share), bytesStr(l.Bytes))
					ranked = fmt.Sprintf("now %s of the bytes through it", pct(l.Share))
					f.lintSite = l.ThroughSite
				}
				src := ""
				if c.in.Heap != nil {
					src = filepath.Base(c.in.Heap.Name)
				}
				f.Evidence = []Evidence{
					{Label: "allocated at the line", Value: float64(l.Bytes) / (1 << 20), Unit: "MiB", Source: src},
					{Label: "share of allocated bytes", Value: l.Share * 100, Unit: "%", Source: src},
				}
				f.Where = []Location{l.Location()}
				f.lintNote = fmt.Sprintf("%s [%s].", l.Message, l.Rule)
				f.Remedy = lintRemedy(&l)
				f.Verify = fmt.Sprintf("gcdoctor lint no longer reports %s, and a heap profile taken under the same load no longer ranks the line (%s).", where, ranked)
				out = append(out, f)
			}
			return out
		},
	})
}

func lintRemedy(l *LintFinding) string {
	r := "Follow the check's advice (gcdoctor explain " + l.Rule + ")."
	if l.Fixable {
		r = "gcdoctor lint --fix makes the change (review the diff); gcdoctor explain " + l.Rule + " says why."
	}
	return r
}

// foldLint folds each lint-hot finding into another finding about the same
// source line, if there is one: the heap rules already describe the line
// and the lint finding adds what exactly to change.
func foldLint(fs []Finding) []Finding {
	at := map[Location]int{}
	for i, f := range fs {
		if f.ID == ruleLintHot || len(f.Where) != 1 || !isSource(f.Where[0].File) {
			continue
		}
		if _, ok := at[f.Where[0]]; !ok {
			at[f.Where[0]] = i
		}
	}
	drop := map[int]bool{}
	for i, f := range fs {
		if f.ID != ruleLintHot {
			continue
		}
		note := " gcdoctor lint flags the line too: "
		j, ok := matchLocation(at, f.Where[0])
		if !ok && f.lintSite != nil {
			j, ok = matchLocation(at, *f.lintSite)
			note = fmt.Sprintf(" gcdoctor lint flags the call at %s:%d: ", filepath.Base(f.Where[0].File), f.Where[0].Line)
		}
		if !ok {
			continue
		}
		o := &fs[j]
		o.Message += note + f.lintNote
		o.Remedy = f.Remedy + " " + o.Remedy
		drop[i] = true
	}
	if len(drop) == 0 {
		return fs
	}
	out := fs[:0:0]
	for i, f := range fs {
		if !drop[i] {
			out = append(out, f)
		}
	}
	return out
}

// matchLocation finds a finding about the same line, allowing for the two
// forms of path (as the checker reports it and as the profile recorded it).
func matchLocation(at map[Location]int, l Location) (int, bool) {
	if j, ok := at[l]; ok {
		return j, true
	}
	p := splitPath(l.File)
	for loc, j := range at {
		if _, same := sameFile(p, splitPath(loc.File)); same && loc.Line == l.Line {
			return j, true
		}
	}
	return 0, false
}

func isSource(file string) bool { return filepath.Ext(file) == ".go" }
