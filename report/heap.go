package report

import (
	"fmt"
	"path/filepath"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/heapprof"
)

// jsonSite is one allocation site of a heap profile.
type jsonSite struct {
	Rank         int         `json:"rank"`
	Function     string      `json:"function"`
	File         string      `json:"file"`
	Line         int         `json:"line"`
	AllocBytes   int64       `json:"alloc_bytes"`
	AllocObjects int64       `json:"alloc_objects"`
	InuseBytes   int64       `json:"inuse_bytes"`
	InuseObjects int64       `json:"inuse_objects"`
	Share        num         `json:"share"`
	AvgSize      num         `json:"avg_size_bytes"`
	ShortLived   num         `json:"short_lived"`
	BytesPerOp   *num        `json:"bytes_per_op,omitempty"`
	Via          string      `json:"via,omitempty"`
	Pattern      string      `json:"pattern"`
	Source       string      `json:"source,omitempty"`
	EscapeReason string      `json:"escape_reason"`
	Stack        []jsonFrame `json:"stack"`
}

type jsonFrame struct {
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int    `json:"line"`
}

type jsonHeap struct {
	Name              string `json:"name"`
	Format            string `json:"format"`
	SamplingRateBytes int64  `json:"sampling_rate_bytes"`
	TotalAllocBytes   int64  `json:"total_alloc_bytes"`
	TotalAllocObjects int64  `json:"total_alloc_objects"`
	TotalInuseBytes   int64  `json:"total_inuse_bytes"`
	SitesShown        int    `json:"sites_shown"`
	SitesTotal        int    `json:"sites_total"`
	Ops               int64  `json:"ops,omitempty"`
	EscapeAnalysis    bool   `json:"escape_analysis"`
}

func heapJSON(d *diagnose.Diagnosis) (*jsonHeap, []jsonSite) {
	h := d.Heap
	if h == nil || h.Profile == nil {
		return nil, nil
	}
	p := h.Profile
	jh := &jsonHeap{Name: h.Name, Format: fmt.Sprint(p.Format), SamplingRateBytes: p.Period,
		TotalAllocBytes: p.TotalAllocBytes, TotalAllocObjects: p.TotalAllocObjects, TotalInuseBytes: p.TotalInuseBytes,
		Ops: h.Ops, EscapeAnalysis: h.Escape != nil}
	if h.Top != nil {
		jh.SitesShown, jh.SitesTotal = len(h.Top.Sites), h.Top.Total
	}
	sites := []jsonSite{}
	for _, s := range d.HeapSites() {
		js := jsonSite{Rank: s.Rank, Function: s.Function, File: s.File, Line: s.Line,
			AllocBytes: s.AllocBytes, AllocObjects: s.AllocObjects, InuseBytes: s.InuseBytes, InuseObjects: s.InuseObjects,
			Share: num(s.Share), AvgSize: num(s.AvgSize), ShortLived: num(s.ShortLived()), Via: s.Via,
			Pattern: s.Pattern, Source: s.Text, EscapeReason: s.EscapeReason(), Stack: []jsonFrame{}}
		if h.Ops > 0 {
			v := num(float64(s.AllocBytes) / float64(h.Ops))
			js.BytesPerOp = &v
		}
		for _, f := range s.Stack {
			js.Stack = append(js.Stack, jsonFrame{Function: f.Function, File: f.File, Line: f.Line})
		}
		sites = append(sites, js)
	}
	return jh, sites
}

// heapSection prints the profile's top allocation sites like `pprof -top`:
// one unit per column, fixed widths, and a header that says what was cut.
func (t *textWriter) heapSection(d *diagnose.Diagnosis) {
	h := d.Heap
	if h == nil || h.Profile == nil || h.Top == nil {
		return
	}
	p := h.Profile
	t.printf("\n%s", t.style(ansiBold, "Allocation sites"))
	rest := fmt.Sprintf(", %s allocated in %s objects", fmtBytes(p.TotalAllocBytes), countStr(p.TotalAllocObjects))
	room := max(t.opt.Width-len("Allocation sites  ")-runeLen(rest), 12)
	t.printf("  %s\n", t.style(ansiDim, truncateLeft(h.Name, room)+rest))
	t.wrap("  ", "  ", t.style(ansiDim, topHeader(h.Top)))
	t.printf("  %9s %6s %9s %6s  %s\n", "alloc", "share", "avg size", "short", "site (charged to your code)")
	for _, s := range d.HeapSites() {
		where := fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)
		t.printf("  %9s %5.1f%% %9s %5.0f%%  %s %s\n", fmtBytes(s.AllocBytes), s.Share*100, fmtBytes(int64(s.AvgSize)),
			s.ShortLived()*100, where, truncate(shortFunc(s.Function), max(t.opt.Width-44-len(where), 10)))
		var why []string
		if s.Via != "" {
			why = append(why, "via "+s.Via)
		}
		if r := s.EscapeReason(); r != "" {
			why = append(why, r)
		}
		for _, w := range why {
			t.wrap("      ", "        ", t.style(ansiDim, w))
		}
	}
	if h.Escape == nil {
		t.wrap("  ", "  ", t.style(ansiDim, "(no escape analysis: add --source PACKAGES to see why each site is on the heap)"))
	}
}

func topHeader(top *heapprof.Top) string {
	return top.String()
}

// shortFunc drops the import path's directories: "github.com/a/b.(*T).M"
// becomes "b.(*T).M".
func shortFunc(fn string) string {
	slash := -1
	for i := 0; i < len(fn); i++ {
		if fn[i] == '/' {
			slash = i
		}
		if fn[i] == '(' || fn[i] == '[' {
			break
		}
	}
	return fn[slash+1:]
}

func countStr(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f M", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.0f k", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
