package diagnose

import (
	"fmt"
	"path/filepath"
)

// The heap rules (rule_heap_*.go) judge the sites of an allocation
// profile. They share one classifier (classify) and one way of reporting
// (heapFindings); each rule is one pattern with its own remedy.

// hotSiteDetection is what makes a site worth a heap rule's finding; the
// rules' Detection goes on to say which pattern each looks for.
const hotSiteDetection = `A mostly short-lived site of the program's code (less than half its bytes
still live) charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes`

// heapFindings makes one finding per hot site of the given pattern: sites
// carrying at least 5% of the allocated bytes, mostly short-lived (garbage
// is what drives the GC; memory that stays live is another question), at
// most three per rule. Each gets the rule's remedy; explain, when not nil,
// adds what is particular to the pattern.
func heapFindings(c *evidenceView, pattern, remedy string, explain func(s *HeapSite, f *Finding)) []*Finding {
	return heapFindingsWhere(c, pattern, remedy, nil, explain)
}

// heapFindingsWhere is heapFindings for the sites keep accepts as well;
// nil keeps every hot site.
func heapFindingsWhere(c *evidenceView, pattern, remedy string, keep func(s *HeapSite) bool, explain func(s *HeapSite, f *Finding)) []*Finding {
	h := c.in.Heap
	var out []*Finding
	for _, s := range c.heapSites() {
		if s.Pattern != pattern || s.Share < minSiteShare || s.AllocBytes < minSiteBytes || !s.User || s.ShortLived() < 0.5 {
			continue
		}
		if keep != nil && !keep(s) {
			continue
		}
		f := &Finding{Severity: Warning, score: s.Share}
		if s.Share < 0.2 {
			f.Severity = Info
		}
		where := fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)
		f.Message = fmt.Sprintf("%s (%s) allocates %s of the bytes in the profile: %s in %s objects",
			where, s.Function, pct(s.Share), bytesStr(s.AllocBytes), count(s.AllocObjects))
		if s.Via != "" {
			f.Message += " (via " + s.Via + ")"
		}
		f.Message += fmt.Sprintf(", %s short-lived.", pct(s.ShortLived()))
		if s.Text != "" {
			f.Message += " The line: `" + s.Text + "`."
		}
		src := filepath.Base(h.Name)
		avg, avgUnit := s.AvgSize, "B"
		switch {
		case avg >= 1<<20:
			avg, avgUnit = avg/(1<<20), "MiB"
		case avg >= 1<<10:
			avg, avgUnit = avg/(1<<10), "KiB"
		}
		f.Evidence = []Evidence{
			{Label: "allocated", Value: float64(s.AllocBytes) / (1 << 20), Unit: "MiB", Source: src},
			{Label: "share of allocated bytes", Value: s.Share * 100, Unit: "%", Source: src},
			{Label: "objects", Value: float64(s.AllocObjects), Unit: "objects", Source: src},
			{Label: "average size", Value: avg, Unit: avgUnit, Source: src},
			{Label: "short-lived", Value: s.ShortLived() * 100, Unit: "%", Source: src},
		}
		if h.Ops > 0 {
			f.Evidence = append(f.Evidence, Evidence{Label: "bytes per op", Value: float64(s.AllocBytes) / float64(h.Ops), Unit: "B/op", Source: src})
		}
		if r := s.EscapeReason(); r != "" {
			f.Caveats = append(f.Caveats, "escape analysis: "+r)
		}
		f.Where = []Location{{File: s.File, Line: s.Line}}
		f.Remedy = remedy
		if explain != nil {
			explain(s, f)
		}
		if f.Verify == "" {
			f.Verify = fmt.Sprintf("Take the profile again under the same load: %s should fall out of the top sites (now #%d, %s of the bytes).", where, s.Rank, pct(s.Share))
		}
		out = append(out, f)
		if len(out) == 3 {
			break
		}
	}
	return out
}

func pct(f float64) string { return f1(f*100) + "%" }

func bytesStr(b int64) string {
	switch {
	case b >= 1<<30:
		return f1(float64(b)/(1<<30)) + " GiB"
	case b >= 1<<20:
		return f1(float64(b)/(1<<20)) + " MiB"
	case b >= 1<<10:
		return f1(float64(b)/(1<<10)) + " KiB"
	}
	return fmt.Sprintf("%d B", b)
}

func count(n int64) string {
	switch {
	case n >= 1e6:
		return f1(float64(n)/1e6) + " M"
	case n >= 1e3:
		return f1(float64(n)/1e3) + " k"
	}
	return fmt.Sprint(n)
}
