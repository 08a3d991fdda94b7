package report

import (
	"fmt"
	"path/filepath"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

// heapSection ranks the profile's allocation sites like `pprof -top`: one
// unit per column, and a caption that says what was cut.
func heapSection(d *diagnose.Diagnosis) *Section {
	sec := &Section{ID: "heap", Title: "Allocation sites"}
	sec.charts = func(int) ([]*chart, []string, error) { return heapCharts(d) }
	h := d.Heap
	if h == nil || h.Profile == nil || h.Top == nil {
		return sec
	}
	p := h.Profile
	sec.Source = h.Name
	sec.Intro = fmt.Sprintf("%s allocated in %s objects", fmtBytes(p.TotalAllocBytes), countStr(p.TotalAllocObjects))
	t := &Table{Caption: topHeader(h.Top), Columns: []Column{{Head: "alloc", Num: true}, {Head: "share", Num: true},
		{Head: "avg size", Num: true}, {Head: "short", Num: true}, {Head: "site"}, {Head: "function (your code)", Flex: true, Func: true}}}
	for _, s := range d.HeapSites() {
		row := TableRow{Cells: []string{fmtBytes(s.AllocBytes), fmt.Sprintf("%.1f%%", s.Share*100), fmtBytes(int64(s.AvgSize)),
			fmt.Sprintf("%.0f%%", s.ShortLived()*100), fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line), s.Function}}
		if s.Via != "" {
			row.Notes = append(row.Notes, "via "+s.Via)
		}
		if r := s.EscapeReason(); r != "" {
			row.Notes = append(row.Notes, r)
		}
		t.Rows = append(t.Rows, row)
	}
	if h.Escape == nil {
		t.Footer = append(t.Footer, "(no escape analysis: add --source PACKAGES to see why each site is on the heap)")
	}
	sec.Tables = append(sec.Tables, t)
	hj, sites := heapJSON(d)
	sec.JSON = []Field{{"heap", hj}, {"sites", sites}}
	return sec
}

func heapCharts(d *diagnose.Diagnosis) ([]*chart, []string, error) {
	h := d.Heap
	if h == nil || h.Profile == nil || h.Top == nil || len(d.HeapSites()) == 0 {
		why := "there is no heap or allocs profile in the evidence (gcdoctor attach collects one; a program run by gcdoctor writes one at its peak with defer agent.WatchHeapPeak()())"
		if h != nil && h.Profile != nil {
			why = "the profile has no allocation sites"
		}
		return nil, []string{"No allocation site chart: " + why + "."}, nil
	}
	c, err := sitesChart(d)
	if err != nil {
		return nil, nil, fmt.Errorf("allocation site chart: %w", err)
	}
	return []*chart{c}, nil, nil
}

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
