package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gcdoctor/gcdoctor/fleet"
	"github.com/gcdoctor/gcdoctor/internal/terminal"
)

// maxChartJobs bounds the bars of the jobs chart; the table lists them
// all.
const maxChartJobs = 15

// FleetHTML writes the fleet report as one offline page, in the same
// style, under the same Content-Security-Policy and from the same
// template as a diagnosis: the sections, a chart of GC cores by job, and
// the findings of the instances shown with their PromQL.
func FleetHTML(w io.Writer, f *Fleet, toolVersion string) error {
	r := f.Report
	fs := fleetFindings(f)
	pg := &htmlPage{
		Verdict:     fleetHeadline(r),
		Counts:      fmt.Sprintf("%s on the %s shown", countOf(len(fs), "finding", "findings"), countOf(len(f.top()), "costliest instance", "costliest instances")),
		Evidence:    []string{fmt.Sprintf("%s, %s ending %s", r.Prometheus, fleet.RangeString(r.Range), r.End.UTC().Format(time.RFC3339))},
		CSP:         cspFor(htmlCSS),
		CSS:         template.CSS(htmlCSS),
		ToolVersion: toolVersion,
		Findings:    fs,
	}
	if len(fs) > 0 {
		pg.Severity = fs[0].Severity.String()
		for _, fd := range fs {
			if fd.Severity > fs[0].Severity {
				pg.Severity = fd.Severity.String()
			}
		}
	}
	if o := otherFindings(f); o != "" {
		pg.Notes = append(pg.Notes, o)
	}
	for _, sec := range fleetSections(f, true) {
		hs := &htmlSection{Section: sec, IntroLine: sentence(sec.Intro)}
		if sec.ID == "jobs" {
			c, err := jobsChart(r)
			if err != nil {
				return err
			}
			if c != nil {
				hs.Charts = append(hs.Charts, c)
			}
		}
		pg.Sections = append(pg.Sections, hs)
	}
	return pageTmpl.Execute(&terminal.Writer{W: w}, pg)
}

// jobsChart draws the GC cores of the costliest jobs, measured and
// estimated parts stacked; nil when no job has any.
func jobsChart(r *fleet.Report) (*chart, error) {
	jobs := r.Jobs[:min(len(r.Jobs), maxChartJobs)]
	if len(jobs) == 0 || !(jobs[0].GCCores > 0) {
		return nil, nil
	}
	exact, est := map[string]float64{}, map[string]float64{}
	for _, in := range r.Instances {
		if in.GCCoresEstimated {
			est[in.Job] += zeroIfNaN(in.GCCores)
		} else {
			exact[in.Job] += zeroIfNaN(in.GCCores)
		}
	}
	p := newPlot("GC CPU by job", "GC CPU (cores)", "")
	var names []string
	var ve, vx plotter.Values
	for i := len(jobs) - 1; i >= 0; i-- {
		j := jobs[i]
		names = append(names, label(fmt.Sprintf("%s ×%d", j.Name, j.Instances), 40))
		ve = append(ve, exact[j.Name])
		vx = append(vx, est[j.Name])
	}
	measured, err := plotter.NewBarChart(ve, vg.Points(14))
	if err != nil {
		return nil, err
	}
	measured.Horizontal, measured.Color, measured.LineStyle.Width = true, colBlue, 0
	estimated, err := plotter.NewBarChart(vx, vg.Points(14))
	if err != nil {
		return nil, err
	}
	estimated.Horizontal, estimated.Color, estimated.LineStyle.Width = true, colOrange, 0
	estimated.StackOn(measured)
	p.Add(measured, estimated)
	p.Legend.Add("from the runtime's CPU classes", measured)
	p.Legend.Add("estimated", estimated)
	p.NominalY(names...)
	p.X.Min = 0
	p.X.Max *= 1.45
	legendRight(p)
	svg, err := svgBytes(p, chartWidth, barHeight(max(len(jobs), 3)))
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("From Prometheus, over %s: the GC CPU of each job's instances summed, in cores (CPU seconds per second), idle marking excluded; the estimated part is from cycles and the heap they scan, where the runtime's CPU classes are not exported.", fleet.RangeString(r.Range))
	if len(r.Jobs) > len(jobs) {
		caption += fmt.Sprintf(" %d cheaper jobs are in the table.", len(r.Jobs)-len(jobs))
	}
	var alt []string
	for _, j := range jobs[:min(3, len(jobs))] {
		alt = append(alt, fmt.Sprintf("%s %s cores", j.Name, fmtNum(j.GCCores)))
	}
	return &chart{ID: "gc-by-job", Title: "GC CPU by job", Caption: caption, Alt: "GC CPU by job: " + strings.Join(alt, ", ") + ".", SVG: svg}, nil
}

func zeroIfNaN(v float64) float64 {
	if v != v {
		return 0
	}
	return v
}
