package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/gctrace"
)

// HTMLOptions tune HTML.
type HTMLOptions struct {
	ToolVersion string // printed in the footer
	// MaxPoints bounds the points of a time series chart (default 2000):
	// longer series are downsampled, and the caption says how.
	MaxPoints int
}

//go:embed html.tmpl
var htmlTemplate string

//go:embed html.css
var htmlCSS string

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"prose":         spans,
	"value":         evidenceValue,
	"pct":           func(f float64) string { return fmt.Sprintf("%.1f %%", f*100) },
	"bytes":         fmtBytes,
	"num":           fmtNum,
	"base":          filepath.Base,
	"int64":         func(f float64) int64 { return int64(f) },
	"firstSentence": firstSentence,
}).Parse(htmlTemplate))

// htmlPage is what the template renders.
type htmlPage struct {
	Verdict     string
	Severity    string // of the most urgent finding, "" when none
	Counts      string
	Evidence    []string
	Run         string
	CSP         string
	CSS         template.CSS
	ToolVersion string

	Actions  []diagnose.Finding
	Findings []diagnose.Finding
	Notes    []string
	Sections []*htmlSection
}

// htmlSection is the part of the page about one kind of evidence: its
// figures, its charts, and notes on the charts it cannot draw.
type htmlSection struct {
	ID, Title string
	Intro     string
	Rows      [][2]string
	Charts    []*chart
	Missing   []string
	Warnings  []string
	Sites     []*diagnose.HeapSite
	SitesNote string
	Groups    []exectrace.Group
	Processes []processRow
	Table     *htmlTable
}

// htmlTable is a plain table of text cells; Num marks the numeric columns.
type htmlTable struct {
	Head []string
	Num  []bool
	Rows [][]string
}

type processRow struct {
	Index                             int
	Lines, Label, CPU, MaxSTW, PeakMB string
	Cycles                            int
}

// Src returns the chart as a data: URL. An SVG shown through <img> is an
// isolated image: whatever text it holds is drawn, never parsed into the
// page, and it cannot run script or fetch anything.
func (c *chart) Src() template.URL {
	return template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(c.SVG))
}

// cspFor returns the page's Content-Security-Policy: nothing may load or
// run except the one style sheet in the page (by hash) and data: images.
func cspFor(css string) string {
	sum := sha256.Sum256([]byte(css))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; img-src data:; base-uri 'none'; form-action 'none'"
}

// HTML writes the diagnosis as one self-contained HTML page that works
// offline: the findings and their evidence, what to do first, and charts of
// the heap, the GC pauses, GC CPU, the MMU curve, the top allocation sites
// and the goroutine groups, each drawn when its evidence is there. The page
// has no script, and a Content-Security-Policy forbids loading anything;
// the charts are SVG images embedded as data: URLs.
func HTML(w io.Writer, d *diagnose.Diagnosis, opt HTMLOptions) error {
	if opt.MaxPoints <= 0 {
		opt.MaxPoints = 2000
	}
	pg := &htmlPage{
		Verdict:     verdict(d),
		Counts:      severityCounts(d),
		Evidence:    evidenceNames(d),
		CSP:         cspFor(htmlCSS),
		CSS:         template.CSS(htmlCSS),
		ToolVersion: opt.ToolVersion,
		Findings:    d.Findings,
		Notes:       d.Notes,
	}
	if len(d.Findings) > 0 {
		pg.Severity = d.Findings[0].Severity.String()
	}
	if d.FirstActions {
		pg.Actions = d.Actions(5)
	}
	pg.Run = runLine(d)
	for _, build := range []func(*diagnose.Diagnosis, HTMLOptions) (*htmlSection, error){gctraceSection, heapSection, traceSection, crossHTML, lintHTML, tuningHTML} {
		s, err := build(d, opt)
		if err != nil {
			return err
		}
		if s != nil { // nil: evidence of a kind the page shows only when present
			pg.Sections = append(pg.Sections, s)
		}
	}
	return pageTmpl.Execute(w, pg)
}

// runLine describes a program gcdoctor ran, "" when it ran none.
func runLine(d *diagnose.Diagnosis) string {
	r := d.Run
	if r == nil {
		return ""
	}
	s := fmt.Sprintf("%s exited with status %d after %s s", strings.Join(r.Command, " "), r.ExitCode, fmtNum(r.WallS))
	if r.PeakRSS > 0 {
		s += ", peak RSS " + fmtBytes(r.PeakRSS)
	}
	var env []string
	if r.GoVersion != "" {
		env = append(env, r.GoVersion)
	}
	for _, kv := range [][2]string{{"GOGC", r.GOGC}, {"GOMEMLIMIT", r.GOMEMLIMIT}, {"GOMAXPROCS", r.GOMAXPROCS}} {
		if kv[1] != "" {
			env = append(env, kv[0]+"="+kv[1])
		}
	}
	if r.NumCPU > 0 {
		env = append(env, plural(r.NumCPU, "CPU"))
	}
	if r.CgroupMemoryLimit > 0 {
		env = append(env, "cgroup memory limit "+fmtBytes(r.CgroupMemoryLimit))
	}
	if len(env) > 0 {
		s += " (" + strings.Join(env, ", ") + ")"
	}
	return s + "."
}

func gctraceSection(d *diagnose.Diagnosis, opt HTMLOptions) (*htmlSection, error) {
	sec := &htmlSection{ID: "gc", Title: "GC cycles"}
	for _, in := range d.Log.Inputs {
		if in.NErrors > 0 && (d.Run == nil || in.NErrors != 1 || !in.Partial) {
			sec.Warnings = append(sec.Warnings, fmt.Sprintf("%s unparsable in %s, the first at %v.", plural(in.NErrors, "gc line"), in.Name, in.Errors[0]))
		}
	}
	segs := d.Log.Segments
	switch {
	case len(segs) == 1:
		s := segs[0]
		sec.Intro = fmt.Sprintf("%s: %s, gc %d–%d, %s format.", s.Input, linesWord(s), s.Summary.FirstGC, s.Summary.LastGC, s.Format)
		sec.Rows = glanceRows(s, inlineCaveat)
		sec.Warnings = append(sec.Warnings, s.Warnings...)
	case len(segs) > 1:
		sec.Intro = fmt.Sprintf("%d processes in the log; the table lists those with the most GC CPU time.", len(segs))
		shown := costliest(segs)
		for _, s := range shown[:min(len(shown), 12)] {
			cpu := "n/a"
			if gctrace.Valid(s.Summary.GCCPUPercent) {
				cpu = fmtNum(s.Summary.GCCPUPercent) + " %"
			}
			sec.Processes = append(sec.Processes, processRow{Index: s.Index, Lines: lineSpan(s), Label: strings.TrimPrefix(s.Label, "# ") + s.Process,
				Cycles: s.Summary.Cycles, CPU: cpu, MaxSTW: fmtNum(s.Summary.MaxPauseMS) + " ms", PeakMB: fmt.Sprintf("%d MB", s.Summary.PeakHeapMB)})
		}
	}
	s := busiestSegment(d)
	if s == nil {
		why := "there is no gctrace log in the evidence (GODEBUG=gctrace=1, or gcdoctor run, records one)"
		if len(segs) > 0 {
			why = "the gctrace cycles were not kept when the log was read (gcdoctor gctrace --cycles keeps them)"
		}
		heap := "No heap-over-time chart from gctrace: " + why + "."
		if traceHeap(d) {
			heap = "No heap-over-time chart from gctrace: " + why + "; the execution trace's is below."
		}
		sec.Missing = append(sec.Missing, heap,
			"No GC pause charts from gctrace: "+why+".",
			"No GC CPU chart: "+why+".")
		return sec, nil
	}
	c, err := heapChart(d, s, opt.MaxPoints)
	if err != nil {
		return nil, fmt.Errorf("heap chart: %w", err)
	}
	sec.Charts = append(sec.Charts, c)
	if c, err = pauseTimeline(d, s, opt.MaxPoints); err != nil {
		return nil, fmt.Errorf("pause chart: %w", err)
	}
	sec.Charts = append(sec.Charts, c)
	sm := &s.Summary
	c, err = pauseHistogram("pause-histogram", "GC pause distribution",
		fmt.Sprintf("From the gctrace of %s: how many stop-the-world phases lasted how long, in buckets of 1-2-5 steps (ms).", segmentName(d, s)),
		fmt.Sprintf("%d pauses: p50 %s ms, p95 %s ms, p99 %s ms, max %s ms.", sm.Pauses, fmtNum(sm.P50PauseMS), fmtNum(sm.P95PauseMS), fmtNum(sm.P99PauseMS), fmtNum(sm.MaxPauseMS)),
		gctracePauses(s.Cycles))
	if err != nil {
		return nil, fmt.Errorf("pause histogram: %w", err)
	}
	sec.Charts = append(sec.Charts, c)
	c, err = gcCPUChart(d, s, opt.MaxPoints)
	if err != nil {
		return nil, fmt.Errorf("GC CPU chart: %w", err)
	}
	if c != nil {
		sec.Charts = append(sec.Charts, c)
	} else {
		sec.Missing = append(sec.Missing, "No GC CPU chart: this log format has neither timestamps nor the runtime's GC CPU figure (Go 1.5 and later print both).")
	}
	return sec, nil
}

func heapSection(d *diagnose.Diagnosis, _ HTMLOptions) (*htmlSection, error) {
	sec := &htmlSection{ID: "heap", Title: "Allocation sites"}
	h := d.Heap
	if h == nil || h.Profile == nil || h.Top == nil || len(d.HeapSites()) == 0 {
		why := "there is no heap or allocs profile in the evidence (gcdoctor attach collects one)"
		if h != nil && h.Profile != nil {
			why = "the profile has no allocation sites"
		}
		sec.Missing = append(sec.Missing, "No allocation site chart: "+why+".")
		return sec, nil
	}
	p := h.Profile
	sec.Intro = fmt.Sprintf("%s: %s allocated in %s objects; %s.", h.Name, fmtBytes(p.TotalAllocBytes), countStr(p.TotalAllocObjects), topHeader(h.Top))
	c, err := sitesChart(d)
	if err != nil {
		return nil, fmt.Errorf("allocation site chart: %w", err)
	}
	sec.Charts = append(sec.Charts, c)
	sec.Sites = d.HeapSites()
	if h.Escape == nil {
		sec.SitesNote = "No escape analysis: add --source PACKAGES to see why each site is on the heap."
	}
	return sec, nil
}

// traceHeap reports whether the heap chart comes from the execution trace:
// when there is one with a heap series and no gctrace cycles to draw.
func traceHeap(d *diagnose.Diagnosis) bool {
	return busiestSegment(d) == nil && d.Trace != nil && d.Trace.Result != nil && len(d.Trace.Result.GC.Heap) > 0
}

func traceSection(d *diagnose.Diagnosis, opt HTMLOptions) (*htmlSection, error) {
	sec := &htmlSection{ID: "trace", Title: "Execution trace"}
	if d.Trace == nil || d.Trace.Result == nil {
		const why = "there is no execution trace in the evidence (gcdoctor attach --seconds N records one)"
		sec.Missing = append(sec.Missing,
			"No stop-the-world pause charts from a trace: "+why+".",
			"No MMU chart: "+why+".",
			"No goroutine group chart: "+why+".")
		return sec, nil
	}
	r := d.Trace.Result
	sec.Intro = fmt.Sprintf("%s: %s ms, %s, %d P.", d.Trace.Name, fmtNum(traceDurationMS(r)), r.GoVersion, r.Procs.GOMAXPROCS)
	if r.Partial {
		sec.Warnings = append(sec.Warnings, "The trace is cut short: the figures cover what could be read.")
	}
	sec.Rows = traceRows(r)
	if traceHeap(d) {
		c, err := traceHeapChart(r)
		if err != nil {
			return nil, fmt.Errorf("heap chart: %w", err)
		}
		sec.Charts = append(sec.Charts, c)
	}
	if len(r.GC.Stops) > 0 {
		c, err := tracePauseTimeline(r, opt.MaxPoints)
		if err != nil {
			return nil, fmt.Errorf("trace pause chart: %w", err)
		}
		sec.Charts = append(sec.Charts, c)
		var ds []float64
		for _, s := range r.GC.Stops {
			ds = append(ds, s.DurationMS)
		}
		st := r.GC.STW
		c, err = pauseHistogram("trace-pause-histogram", "Stop-the-world pause distribution",
			"From the execution trace: how many pauses (the collector's and the others) lasted how long, in buckets of 1-2-5 steps (ms).",
			fmt.Sprintf("%d pauses: p50 %s ms, p95 %s ms, p99 %s ms, max %s ms.", st.Count, fmtNum(st.P50MS), fmtNum(st.P95MS), fmtNum(st.P99MS), fmtNum(st.MaxMS)), ds)
		if err != nil {
			return nil, fmt.Errorf("trace pause histogram: %w", err)
		}
		sec.Charts = append(sec.Charts, c)
	} else {
		sec.Missing = append(sec.Missing, "No stop-the-world pause charts from the trace: the world was never stopped while it was recorded.")
	}
	if len(r.MMU.Points) > 0 {
		c, err := mmuChart(r)
		if err != nil {
			return nil, fmt.Errorf("MMU chart: %w", err)
		}
		sec.Charts = append(sec.Charts, c)
	} else {
		sec.Missing = append(sec.Missing, "No MMU chart: the trace summary has no MMU curve.")
	}
	sec.Groups = userGroups(r)
	if len(sec.Groups) > 0 {
		c, err := groupsChart(r)
		if err != nil {
			return nil, fmt.Errorf("goroutine chart: %w", err)
		}
		sec.Charts = append(sec.Charts, c)
	} else {
		sec.Missing = append(sec.Missing, "No goroutine group chart: the trace shows only the runtime's own goroutines.")
	}
	return sec, nil
}
