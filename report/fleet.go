package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/fleet"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// Fleet is the document gcdoctor fleet prints: the fleet's report and
// how many of its costliest instances to list and detail.
type Fleet struct {
	Report *fleet.Report
	// Top is how many instances the tables and the findings show (JSON
	// lists them all).
	Top int
}

// FleetFormats are the forms of a fleet report.
var FleetFormats = []Format[*Fleet]{
	{Name: "text", Doc: "for people, in a terminal", Render: func(w io.Writer, f *Fleet, o Options) error {
		return FleetText(w, f, o.text())
	}},
	{Name: "json", Doc: "for programs (schema: docs/json.md)", Render: func(w io.Writer, f *Fleet, o Options) error {
		return FleetJSON(w, f, o.ToolVersion)
	}},
	{Name: "markdown", Doc: "to paste into an issue or a pull request", Render: func(w io.Writer, f *Fleet, o Options) error {
		return FleetMarkdown(w, f, o.ToolVersion)
	}},
	{Name: "html", Doc: "one offline page with a chart", Page: true, Render: func(w io.Writer, f *Fleet, o Options) error {
		return FleetHTML(w, f, o.ToolVersion)
	}},
}

// top returns the instances the tables show.
func (f *Fleet) top() []*fleet.Instance {
	ins := f.Report.Instances
	n := f.Top
	if n <= 0 {
		n = 10
	}
	return ins[:min(n, len(ins))]
}

// fleetHeadline sums the fleet up in a sentence.
func fleetHeadline(r *fleet.Report) string {
	s := fmt.Sprintf("%s in %s use %s GC cores", countOf(len(r.Instances), "instance", "instances"), countOf(len(r.Jobs), "job", "jobs"), fmtNum(r.GCCores))
	if r.ProcessCores > 0 {
		s += fmt.Sprintf(", %s%% of their CPU", fmtNum(r.GCCores/r.ProcessCores*100))
	}
	return s
}

// cores formats a figure in cores.
func cores(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmtNum(v)
}

// share formats a share as a percentage.
func share(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return fmtNum(v*100) + "%"
}

// mibs formats bytes in MiB, for tables with one unit per column.
func mibs(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return fmtNum(v / (1 << 20))
}

// coreRange formats an estimate with its range: "0.42 (0.1–1.7)".
func coreRange(r pacer.Range) string {
	if r.Low == r.High {
		return fmtNum(r.Value)
	}
	return fmt.Sprintf("%s (%s–%s)", fmtNum(r.Value), fmtNum(r.Low), fmtNum(r.High))
}

// gogcName formats a GOGC value.
func gogcName(g int) string {
	if g < 0 {
		return "off"
	}
	return strconv.Itoa(g)
}

// limitName formats a GOMEMLIMIT, "none" when unset.
func limitName(b int64) string {
	if b <= 0 {
		return "none"
	}
	return pacer.GOMEMLIMIT(b)
}

// fleetSections builds the fleet document's sections; the queries' table
// only for the formats that keep everything (queries).
func fleetSections(f *Fleet, queries bool) []*Section {
	r := f.Report
	var out []*Section
	ov := &Section{ID: "fleet", Title: "Fleet"}
	sel := r.Match
	if sel == "" {
		sel = "every target"
	} else {
		sel = "{" + sel + "}"
	}
	ov.Rows = append(ov.Rows,
		Row{"Prometheus", r.Prometheus},
		Row{"selector", sel},
		Row{"window", fmt.Sprintf("%s ending %s", fleet.RangeString(r.Range), r.End.UTC().Format(time.RFC3339))},
		Row{"GC CPU", fmt.Sprintf("%s cores of %s used by the processes", fmtNum(r.GCCores), fmtNum(r.ProcessCores))},
	)
	if r.GCCoresEstimated > 0 {
		ov.Rows = append(ov.Rows, Row{"of it estimated", fmt.Sprintf("%s cores, on instances without the runtime's CPU classes (%s ms per cycle and scanned MiB, from %s)",
			fmtNum(r.GCCoresEstimated), fmtNum(r.Calibration.MS), r.Calibration.From)})
	}
	if t := r.Tuning; t.Jobs > 0 {
		ov.Rows = append(ov.Rows, Row{"tuning would save", fmt.Sprintf("%s GC cores across %s (heap goals +%s MiB in all); see Tuning", coreRange(t.Saved), countOf(t.Jobs, "job", "jobs"), fmtNum(t.ExtraGoalMiB))})
	}
	var secs float64
	var bytes int64
	for _, q := range r.Queries {
		secs = max(secs, q.Secs)
		bytes += q.Bytes
	}
	ov.Rows = append(ov.Rows, Row{"queries", fmt.Sprintf("%d PromQL queries for all instances, %s of responses, the slowest %s s", len(r.Queries), fmtBytes(bytes), fmtNum(secs))})
	ov.Caveats = append(ov.Caveats, r.Notes...)
	out = append(out, ov)

	out = append(out, fleetJobsSection(r), fleetCostSection(f), fleetMemorySection(f), fleetTuningSection(r))
	if s := fleetMissingSection(r); s != nil {
		out = append(out, s)
	}
	if s := fleetDrillSection(r); s != nil {
		out = append(out, s)
	}
	if queries {
		out = append(out, fleetQueriesSection(r))
	}
	return out
}

func fleetJobsSection(r *fleet.Report) *Section {
	tb := &Table{Columns: []Column{{Head: "job", Flex: true}, {Head: "instances", Num: true}, {Head: "GC cores", Num: true},
		{Head: "GC % of CPU", Num: true}, {Head: "estimated", Num: true}}}
	for _, j := range r.Jobs {
		row := TableRow{Cells: []string{j.Name, strconv.Itoa(j.Instances), fmtNum(j.GCCores), share(j.GCShare), strconv.Itoa(j.Estimated)}}
		var fs []string
		for _, jf := range j.Findings {
			fs = append(fs, fmt.Sprintf("%s ×%d", jf.ID, jf.Instances))
		}
		if len(fs) > 0 {
			row.Notes = append(row.Notes, "findings: "+strings.Join(fs, ", "))
		}
		tb.Rows = append(tb.Rows, row)
	}
	return &Section{ID: "jobs", Title: "Jobs", Intro: "ranked by GC CPU; estimated counts the instances whose GC CPU is an estimate, findings the instances with each", Tables: []*Table{tb}}
}

func fleetCostSection(f *Fleet) *Section {
	r := f.Report
	tb := &Table{Columns: []Column{{Head: "#", Num: true}, {Head: "job"}, {Head: "instance", Flex: true}, {Head: "GC cores", Num: true},
		{Head: "% CPU", Num: true}, {Head: "GC/s", Num: true}, {Head: "p99 ms", Num: true}, {Head: "max ms", Num: true}, {Head: "alloc MB/s", Num: true}}}
	for i, in := range f.top() {
		c := cores(in.GCCores)
		if in.GCCoresEstimated {
			c = "~" + c
		}
		tb.Rows = append(tb.Rows, TableRow{Cells: []string{strconv.Itoa(i + 1), in.Job, in.Instance, c, share(in.GCShare), fmtNum(in.GCPerSecond),
			fmtNum(in.PauseP99S * 1000), fmtNum(in.PauseMaxS * 1000), mibs(in.AllocBytesPerSec)}})
	}
	if n := len(r.Instances) - len(f.top()); n > 0 {
		tb.Footer = append(tb.Footer, fmt.Sprintf("%s with less GC CPU not shown (--top).", countOf(n, "instance", "instances")))
	}
	tb.Footer = append(tb.Footer, "~ marks an estimated GC CPU; % CPU is the share of the process's own CPU; MB/s in MiB.")
	return &Section{ID: "instances", Title: "Costliest instances", Intro: "GC CPU, cycles, pauses and allocation, ranked by GC cores", Tables: []*Table{tb}}
}

func fleetMemorySection(f *Fleet) *Section {
	tb := &Table{Columns: []Column{{Head: "#", Num: true}, {Head: "instance", Flex: true}, {Head: "live MiB", Num: true}, {Head: "goal MiB", Num: true},
		{Head: "RSS MiB", Num: true}, {Head: "GOGC", Num: true}, {Head: "GOMEMLIMIT", Num: true}, {Head: "GOMAXPROCS", Num: true}}}
	for i, in := range f.top() {
		live := mibs(in.LiveBytes)
		if in.LiveEstimated {
			live = "~" + live
		}
		gogc := gogcName(in.GOGC)
		if !in.GOGCKnown {
			gogc = "?"
		}
		procs := "?"
		if in.GOMAXPROCS > 0 {
			procs = strconv.Itoa(in.GOMAXPROCS)
		}
		tb.Rows = append(tb.Rows, TableRow{Cells: []string{strconv.Itoa(i + 1), in.Instance, live, mibs(in.GoalBytes), mibs(in.RSSMaxBytes), gogc, limitName(in.MemoryLimit), procs}})
	}
	tb.Footer = []string{"live and goal are means over the window, RSS its peak; ~ marks a live heap estimated from the goal; ? a setting the metrics do not give."}
	return &Section{ID: "memory", Title: "Heap and settings", Intro: "the same instances: live heap against its goal and GOMEMLIMIT, RSS, and the settings in force", Tables: []*Table{tb}}
}

func settingName(s pacer.Setting) string {
	if s.MemoryLimit > 0 {
		return "GOGC=" + gogcName(s.GOGC) + " GOMEMLIMIT=" + pacer.GOMEMLIMIT(s.MemoryLimit)
	}
	return "GOGC=" + gogcName(s.GOGC)
}

func fleetTuningSection(r *fleet.Report) *Section {
	tb := &Table{Columns: []Column{{Head: "job", Flex: true}, {Head: "now"}, {Head: "setting"}, {Head: "modelled", Num: true}, {Head: "GC cores", Num: true},
		{Head: "saves", Num: true}}}
	for _, t := range r.Tuning.PerJob {
		row := TableRow{Cells: []string{t.Job, settingName(t.Current), "", strconv.Itoa(t.Modelled), fmtNum(t.GCCores.Value), ""}}
		if t.Err != "" {
			row.Cells[2], row.Cells[5] = "-", "-"
			row.Notes = append(row.Notes, t.Err)
		} else {
			row.Cells[2] = settingName(t.Setting)
			row.Cells[5] = fmtNum(t.Saved.Value)
			row.Notes = append(row.Notes, fmt.Sprintf("saves %s GC cores; heap goals %s → %s MiB in all", coreRange(t.Saved), fmtNum(t.GoalMiB), fmtNum(t.PredictedGoalMiB)))
			if t.Budget > 0 {
				row.Notes = append(row.Notes, fmt.Sprintf("within a %s budget per instance (%s)", fmtBytes(t.Budget), t.BudgetFrom))
			}
			for _, a := range t.Alternatives[min(1, len(t.Alternatives)):] {
				row.Notes = append(row.Notes, fmt.Sprintf("%s would save %s cores, heap goals %s MiB", settingName(a.Setting), coreRange(a.Saved), fmtNum(a.PredictedGoalMiB)))
			}
		}
		for _, u := range t.Unfitted {
			row.Notes = append(row.Notes, "not modelled: "+u)
		}
		tb.Rows = append(tb.Rows, row)
	}
	s := &Section{ID: "tuning", Title: "Tuning", Intro: "what a GOGC/GOMEMLIMIT setting per job would save, from the pacer's heap-goal model", Tables: []*Table{tb}}
	s.Caveats = []string{
		"The model holds each instance's allocation rate, live heap and cost per cycle as they were over the window and moves only the heap goal (pacer.HeapGoal); the range covers the runway's ±10% and the estimate's range where GC CPU is estimated.",
	}
	if slices.ContainsFunc(r.Tuning.PerJob, func(t *fleet.JobTuning) bool { return t.Budget == 0 && t.Err == "" }) {
		s.Caveats = append(s.Caveats, "With no memory budget known (--budget, or a GOMEMLIMIT in force), the setting shown is the next higher GOGC, and its cost is the heap it adds.")
	}
	return s
}

func fleetMissingSection(r *fleet.Report) *Section {
	count := map[string][]string{}
	for _, in := range r.Instances {
		for _, m := range in.Missing {
			count[m] = append(count[m], in.Job+" "+in.Instance)
		}
	}
	if len(count) == 0 {
		return nil
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(count[keys[i]]) != len(count[keys[j]]) {
			return len(count[keys[i]]) > len(count[keys[j]])
		}
		return keys[i] < keys[j]
	})
	tb := &Table{Columns: []Column{{Head: "instances", Num: true}, {Head: "missing, and what it leaves estimated or unjudged", Flex: true, Wrap: true}}}
	for _, k := range keys {
		ins := count[k]
		eg := strings.Join(ins[:min(3, len(ins))], ", ")
		if len(ins) > 3 {
			eg += ", …"
		}
		tb.Rows = append(tb.Rows, TableRow{Cells: []string{strconv.Itoa(len(ins)), k}, Notes: []string{eg}})
	}
	return &Section{ID: "missing", Title: "Missing series", Intro: "what some instances do not export (JSON lists it per instance)", Tables: []*Table{tb}}
}

func fleetDrillSection(r *fleet.Report) *Section {
	if len(r.Drill) == 0 {
		return nil
	}
	tb := &Table{Columns: []Column{{Head: "#", Num: true}, {Head: "instance"}, {Head: "diagnosis", Flex: true, Wrap: true}}}
	failed := 0
	for i, d := range r.Drill {
		row := TableRow{Cells: []string{strconv.Itoa(i + 1), d.Job + " " + d.Instance, ""}}
		if d.Err != "" {
			failed++
			row.Cells[2] = "failed: " + d.Err
		} else {
			row.Cells[2] = verdict(d.Diagnosis)
			for _, fd := range d.Diagnosis.Findings[:min(3, len(d.Diagnosis.Findings))] {
				row.Notes = append(row.Notes, fmt.Sprintf("%s %s: %s", fd.Severity, fd.ID, firstSentence(fd.Message)))
			}
			row.Notes = append(row.Notes, "evidence in "+d.Dir+" (gcdoctor doctor "+d.Dir+")")
		}
		tb.Rows = append(tb.Rows, row)
	}
	s := &Section{ID: "drill", Title: "Drill-down", Intro: "the single-service diagnosis of the costliest instances, from their /debug/pprof", Tables: []*Table{tb}}
	if failed > 0 {
		tb.Footer = append(tb.Footer, fmt.Sprintf("%s of %d could not be diagnosed.", countOf(failed, "instance", "instances"), len(r.Drill)))
	}
	return s
}

func fleetQueriesSection(r *fleet.Report) *Section {
	tb := &Table{Columns: []Column{{Head: "query"}, {Head: "series", Num: true}, {Head: "s", Num: true}, {Head: "PromQL", Flex: true, Wrap: true}}}
	for _, q := range r.Queries {
		row := TableRow{Cells: []string{q.Name, strconv.Itoa(q.Series), fmtNum(q.Secs), q.PromQL}}
		if q.Err != "" {
			row.Notes = append(row.Notes, "failed: "+q.Err)
		}
		for _, w := range q.Warnings {
			row.Notes = append(row.Notes, "warning: "+w)
		}
		tb.Rows = append(tb.Rows, row)
	}
	return &Section{ID: "queries", Title: "Queries", Intro: fmt.Sprintf("the %d PromQL queries sent, each evaluated at the window's end for every instance at once", len(r.Queries)), Tables: []*Table{tb}}
}

// fleetFindings are the findings of the instances shown, costliest
// instance first, most severe first within it.
func fleetFindings(f *Fleet) []diagnose.Finding {
	var out []diagnose.Finding
	for _, in := range f.top() {
		out = append(out, in.Findings...)
	}
	return out
}

// otherFindings counts, per rule, the findings of the instances not shown.
func otherFindings(f *Fleet) string {
	n := map[string]int{}
	for _, in := range f.Report.Instances[len(f.top()):] {
		for _, fd := range in.Findings {
			n[fd.ID]++
		}
	}
	if len(n) == 0 {
		return ""
	}
	var parts []string
	for id, c := range n {
		parts = append(parts, fmt.Sprintf("%s ×%d", id, c))
	}
	sort.Strings(parts)
	return "On the instances not shown: " + strings.Join(parts, ", ") + " (JSON lists them all)."
}
