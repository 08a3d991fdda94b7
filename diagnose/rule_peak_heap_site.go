package diagnose

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/heapprof"
)

// The thresholds of peak-heap-site.
const (
	peakSiteMinPeakMB   = 64       // a peak heap worth the trouble, MiB
	peakSiteOverMean    = 3.0      // peak heap against the mean live heap
	peakSiteMinSeen     = 0.5      // the profile's in-use bytes against the largest live heap
	peakSiteMinShare    = 0.4      // the site's share of the in-use bytes
	peakSiteMinBytes    = 32 << 20 // and at least this much
	peakSiteStackFrames = 3        // frames of the call path named, below the site
)

// remedyPeakHeapSite is peak-heap-site's remedy, in its documentation and
// its findings.
const remedyPeakHeapSite = `Stream the output instead of building it whole: write each row, record or
element to the destination (file, response, pipe) as it is made, so that
what is live at any time is one row's worth and not the whole document.
For spreadsheets, excelize's StreamWriter (` + "`f.NewStreamWriter(sheet)`, `sw.SetRow`, `sw.Flush`" + `)
instead of ` + "`SetCellValue`/`SetSheetRow`" + ` on the File; for CSV, JSON or XML,
` + "`encoding/csv.Writer`, `json.Encoder` or `xml.Encoder`" + ` on the output rather
than a slice or buffer of the whole result. The GC cannot shrink a heap
whose bytes are all still wanted: only holding fewer of them at once lowers
the peak, and with it the memory the process needs.`

func init() {
	register(&Rule{
		ID: "peak-heap-site", Title: "One site holds most of the heap at its peak", Severity: Warning, Rank: 45,
		Evidence: "gctrace + heap profile",
		Rationale: `A program that builds a whole document (a spreadsheet, a report, a JSON
array) in memory before writing it keeps every part of it live until the
end: the live heap climbs with the size of the output, the heap goal with
it, and the peak the process needs is the document's size times the GOGC
headroom. No GC setting helps, since none of those bytes is garbage.`,
		Detection: `A process whose peak heap is ≥ 64 MB and ≥ 3× its mean live heap, with an
in-use heap profile taken near the peak (its in-use bytes are ≥ half the
largest live heap, as ` + "`agent.WatchHeapPeak`" + ` writes under gcdoctor run or doctor)
in which one site of the program's code (the first frame of its own code on
the stacks) holds ≥ 40% and ≥ 32 MiB of the in-use bytes.`,
		Remedy: remedyPeakHeapSite,
		Verify: `Run the program again as before: the peak heap (peak_heap_mb) should fall to
a few times one row's worth, and this finding should not come back.`,
		check: checkPeakHeapSite,
	})
}

func checkPeakHeapSite(c *evidenceView, s *gctrace.Segment) *Finding {
	h := c.in.Heap
	sm := &s.Summary
	if h == nil || h.Inuse == nil || len(h.Inuse.Sites) == 0 || h.Inuse.ProfileSum <= 0 {
		return nil
	}
	if sm.PeakHeapMB < peakSiteMinPeakMB || !gctrace.Valid(sm.LiveMeanMB) || sm.LiveMeanMB <= 0 ||
		float64(sm.PeakHeapMB) < peakSiteOverMean*sm.LiveMeanMB {
		return nil
	}
	total := h.Inuse.ProfileSum
	if float64(total) < peakSiteMinSeen*float64(sm.LiveMaxMB)*(1<<20) {
		return nil
	}
	site := h.Inuse.Sites[0]
	share := float64(site.InuseBytes) / float64(total)
	if !site.User || share < peakSiteMinShare || site.InuseBytes < peakSiteMinBytes {
		return nil
	}
	where := fmt.Sprintf("%s:%d", filepath.Base(site.File), site.Line)
	peakShare := float64(site.InuseBytes) / (float64(sm.PeakHeapMB) * (1 << 20))
	f := &Finding{Severity: Warning, score: share}
	f.Message = fmt.Sprintf("%s (%s) holds %s of the %s in use in the heap profile (%s)%s, when %s's heap peaked at %s, %s× its mean live heap of %s MB.",
		where, site.Function, bytesStr(site.InuseBytes), bytesStr(total), pct(share), callPath(site), who(s),
		mb(sm.PeakHeapMB), f1(float64(sm.PeakHeapMB)/sm.LiveMeanMB), f1(sm.LiveMeanMB))
	if h.Source != nil {
		if t := strings.TrimSpace(h.Source(site.File, site.Line)); t != "" {
			f.Message += " The line: `" + t + "`."
		}
	}
	src := filepath.Base(h.Name)
	f.Evidence = []Evidence{
		{Label: "held by the site", Value: float64(site.InuseBytes) / (1 << 20), Unit: "MiB", Source: src},
		{Label: "share of the in-use heap", Value: share * 100, Unit: "%", Source: src},
		{Label: "share of the peak heap", Value: peakShare * 100, Unit: "%", Source: src},
		{Label: "peak heap", Value: float64(sm.PeakHeapMB), Unit: "MB", Source: "gctrace"},
		{Label: "mean live heap", Value: sm.LiveMeanMB, Unit: "MB", Source: "gctrace"},
	}
	f.Where = []Location{{File: site.File, Line: site.Line}}
	at := where + " (" + site.Function + ")"
	if fr := callerOutside(site); fr != nil {
		// The site is in a library; the line that asked it to build the
		// document is where to change the program.
		at = fmt.Sprintf("%s:%d (%s)", filepath.Base(fr.File), fr.Line, fr.Function)
		f.Message += fmt.Sprintf(" The program builds it at %s.", at)
		f.Where = append([]Location{{File: fr.File, Line: fr.Line}}, f.Where...)
	}
	f.Remedy = fmt.Sprintf("At %s: %s", at, strings.Join(strings.Fields(remedyPeakHeapSite), " "))
	f.Verify = fmt.Sprintf("Run the program again as before: the peak heap (now %s) should fall, and %s should no longer hold most of the in-use heap.", mb(sm.PeakHeapMB), where)
	f.Caveats = append(f.Caveats, "a heap profile describes the heap as of a completed collection, sampled (one sample per 512 KiB allocated by default): the site's bytes are an estimate of what it held then, not at the very peak")
	return f
}

// callerOutside returns, for a site in a library, the first frame above it
// on its heaviest stack that is neither that library's (its module, as far
// as the package path tells: its first three elements for a host-named
// path) nor the standard library's: the caller in the program that asked
// for what the site holds. It returns nil when there is none.
func callerOutside(site heapprof.Site) *heapprof.Frame {
	root := moduleRoot(heapprof.PackagePath(site.Function))
	if heapprof.PackagePath(site.Function) == "main" {
		return nil
	}
	below := true
	for i := range site.Stack {
		fr := &site.Stack[i]
		if below {
			below = fr.Function != site.Function
			continue
		}
		pkg := heapprof.PackagePath(fr.Function)
		if fr.Function != "" && !heapprof.IsStd(fr.Function) && moduleRoot(pkg) != root {
			return fr
		}
	}
	return nil
}

// moduleRoot cuts a package path to the module it most likely belongs to:
// "github.com/xuri/excelize/v2" for ".../excelize/v2/internal/x"; paths of
// other hosts keep their first two elements.
func moduleRoot(pkg string) string {
	parts := strings.Split(pkg, "/")
	n := 2
	if parts[0] == "github.com" || parts[0] == "gitlab.com" || parts[0] == "bitbucket.org" {
		n = 3
		if len(parts) > 3 && len(parts[3]) > 1 && parts[3][0] == 'v' && strings.Trim(parts[3][1:], "0123456789") == "" {
			n = 4
		}
	}
	return strings.Join(parts[:min(n, len(parts))], "/")
}

// callPath names, for a site charged to the program's own line, the
// functions below it that allocated, as ", through a → b" (leaf last),
// or "" when the line allocated itself.
func callPath(site heapprof.Site) string {
	var fns []string
	for _, fr := range site.Stack {
		if fr.Function == site.Function {
			break
		}
		fns = append(fns, fr.Function)
	}
	if len(fns) == 0 {
		return ""
	}
	if len(fns) > peakSiteStackFrames {
		fns = fns[len(fns)-peakSiteStackFrames:]
	}
	for i, j := 0, len(fns)-1; i < j; i, j = i+1, j-1 {
		fns[i], fns[j] = fns[j], fns[i]
	}
	return ", through " + strings.Join(fns, " → ")
}
