// Package report renders a diagnose.Diagnosis for people (text, Markdown,
// an HTML page with charts), for programs (JSON) and for code scanning
// (SARIF); docs/reports.md describes each. Nothing else in gcdoctor formats
// output.
package report

import (
	"encoding/json"
	"io"
	"math"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
)

// SchemaVersion is the version of the JSON document JSON writes. It changes
// only when a field is removed or changes meaning; new fields may be added
// within a version. docs/json.md documents every field and the changes
// between versions.
const SchemaVersion = 2

// num is a float64 that encodes NaN ("not known") as null.
type num float64

func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	// Round to what the input can support: gctrace gives 2–3 digits.
	return json.Marshal(math.Round(f*1e4) / 1e4)
}

type jsonLogTotals struct {
	Segments        int `json:"segments"`
	Cycles          int `json:"cycles"`
	SegmentsDropped int `json:"segments_not_analysed"`
}

type jsonInput struct {
	Name       string         `json:"name"`
	Lines      int            `json:"lines"`
	Bytes      int64          `json:"bytes"`
	Cycles     int            `json:"cycle_lines"`
	Segments   int            `json:"segments"`
	Partial    bool           `json:"partial"`
	ErrorCount int            `json:"error_count"`
	Errors     []jsonSyntax   `json:"errors"`
	Kinds      map[string]int `json:"line_kinds"`
}

type jsonSyntax struct {
	Line    int    `json:"line"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

type jsonRun struct {
	Command      []string `json:"command"`
	ExitCode     *int     `json:"exit_code"` // null when not known
	WallS        num      `json:"wall_s"`
	PeakRSSBytes int64    `json:"peak_rss_bytes"`
}

type jsonSegment struct {
	Index     int         `json:"index"`
	Input     string      `json:"input"`
	FirstLine int         `json:"first_line"`
	LastLine  int         `json:"last_line"`
	Label     string      `json:"label,omitempty"`
	Process   string      `json:"process,omitempty"`
	Format    string      `json:"format"`
	Summary   jsonSummary `json:"summary"`
	Warnings  []string    `json:"warnings"`
	Cycles    []jsonCycle `json:"cycles,omitempty"`
}

// jsonCycle is one gctrace line, present with --cycles. Times are ms, sizes
// MiB as printed; fields the line's format lacks are null.
type jsonCycle struct {
	Line            int    `json:"line"`
	GC              int    `json:"gc"`
	AtS             num    `json:"at_s"`
	RuntimeCPUPct   *int   `json:"runtime_gc_cpu_percent"`
	Forced          bool   `json:"forced"`
	Periodic        bool   `json:"periodic"`
	SweepTermMS     num    `json:"sweep_term_ms"`
	MarkMS          num    `json:"mark_ms"`
	MarkTermMS      num    `json:"mark_term_ms"`
	STWMS           num    `json:"stw_ms"`
	CPUSweepTermMS  num    `json:"cpu_sweep_term_ms"`
	CPUAssistMS     num    `json:"cpu_assist_ms"`
	CPUBackgroundMS num    `json:"cpu_background_ms"`
	CPUIdleMS       num    `json:"cpu_idle_ms"`
	CPUMarkTermMS   num    `json:"cpu_mark_term_ms"`
	HeapStartMB     int64  `json:"heap_start_mb"`
	HeapEndMB       int64  `json:"heap_end_mb"`
	HeapLiveMB      *int64 `json:"heap_live_mb"`
	HeapGoalMB      *int64 `json:"heap_goal_mb"`
	StacksMB        *int64 `json:"stacks_mb"`
	GlobalsMB       *int64 `json:"globals_mb"`
	Procs           int    `json:"procs"`
}

func cycleJSON(c *gctrace.Cycle) jsonCycle {
	at := num(math.NaN())
	if c.HasAt {
		at = num(c.At)
	}
	var util *int
	if c.Util >= 0 {
		u := c.Util
		util = &u
	}
	return jsonCycle{
		Line: c.Line, GC: c.Num, AtS: at, RuntimeCPUPct: util, Forced: c.Forced, Periodic: c.Periodic,
		SweepTermMS: num(c.Clock.SweepTerm), MarkMS: num(c.ConcurrentWall()), MarkTermMS: num(c.Clock.MarkTerm), STWMS: num(c.PauseTotal()),
		CPUSweepTermMS: num(c.CPU.SweepTerm), CPUAssistMS: num(c.CPU.Assist), CPUBackgroundMS: num(c.CPU.Background),
		CPUIdleMS: num(c.CPU.Idle), CPUMarkTermMS: num(c.CPU.MarkTerm),
		HeapStartMB: c.HeapStart, HeapEndMB: c.HeapEnd, HeapLiveMB: optMB(c.HeapLive), HeapGoalMB: optMB(c.HeapGoal),
		StacksMB: optMB(c.Stacks), GlobalsMB: optMB(c.Globals), Procs: c.Procs,
	}
}

type jsonSummary struct {
	Cycles            int    `json:"cycles"`
	ForcedCycles      int    `json:"forced_cycles"`
	PeriodicCycles    int    `json:"periodic_cycles"`
	FirstGC           int    `json:"first_gc"`
	LastGC            int    `json:"last_gc"`
	MissingCycles     int    `json:"missing_cycles"`
	Procs             int    `json:"procs"`
	StartS            num    `json:"start_s"`
	EndS              num    `json:"end_s"`
	WallS             num    `json:"wall_s"`
	GCPerSecond       num    `json:"gc_per_second"`
	MaxGapS           num    `json:"max_gap_s"`
	Pauses            int    `json:"pauses"`
	PauseTotalMS      num    `json:"pause_total_ms"`
	P50PauseMS        num    `json:"p50_pause_ms"`
	P95PauseMS        num    `json:"p95_pause_ms"`
	P99PauseMS        num    `json:"p99_pause_ms"`
	MaxPauseMS        num    `json:"max_pause_ms"`
	MaxPauseLine      int    `json:"max_pause_line"`
	PausesApprox      bool   `json:"pauses_approximate"`
	GCCPUPercent      num    `json:"gc_cpu_percent"`
	RuntimeCPUPercent *int   `json:"runtime_gc_cpu_percent"`
	IdleCPUPercent    num    `json:"idle_mark_cpu_percent"`
	AssistPercent     num    `json:"assist_percent"`
	MarkWallPercent   num    `json:"mark_wall_percent"`
	GCCPUMS           num    `json:"gc_cpu_ms"`
	AllocMBPerS       num    `json:"alloc_mb_per_s"`
	AllocatedMB       num    `json:"allocated_mb"`
	LiveFirstMB       *int64 `json:"live_first_mb"`
	LiveLastMB        *int64 `json:"live_last_mb"`
	LiveMinMB         *int64 `json:"live_min_mb"`
	LiveMaxMB         *int64 `json:"live_max_mb"`
	LiveMedianMB      num    `json:"live_median_mb"`
	LiveSlope         num    `json:"live_slope_mb_per_s"`
	LiveR2            num    `json:"live_r2"`
	PeakHeapMB        int64  `json:"peak_heap_mb"`
	PeakHeapLine      int    `json:"peak_heap_line"`
	PeakTotalMB       int64  `json:"peak_total_mb"`
	MinGoalMB         *int64 `json:"min_goal_mb"`
	MaxGoalMB         *int64 `json:"max_goal_mb"`
	MaxStacksMB       *int64 `json:"max_stacks_mb"`
	MaxGlobalsMB      *int64 `json:"max_globals_mb"`
	OvershootCycles   int    `json:"overshoot_cycles"`
	MaxOvershootPct   num    `json:"max_overshoot_percent"`
	AtGoalCycles      int    `json:"at_goal_cycles"`
	BackToBackCycles  int    `json:"back_to_back_cycles"`
	MinHeapCycles     int    `json:"min_heap_cycles"`
}

type jsonFinding struct {
	ID       string         `json:"id"`
	Severity string         `json:"severity"`
	Title    string         `json:"title"`
	Message  string         `json:"message"`
	Evidence []jsonEvidence `json:"evidence"`
	Where    []jsonLocation `json:"where"`
	Remedy   string         `json:"remedy"`
	Verify   string         `json:"verify"`
	Caveats  []string       `json:"caveats"`
	Segments []int          `json:"segments"`
	Also     int            `json:"also_in_segments"`
}

// jsonAction is one entry of "what to do first".
type jsonAction struct {
	Rank     int            `json:"rank"`
	ID       string         `json:"id"`
	Severity string         `json:"severity"`
	Title    string         `json:"title"`
	Where    []jsonLocation `json:"where"`
	Remedy   string         `json:"remedy"`
	Verify   string         `json:"verify"`
	Command  string         `json:"command,omitempty"`
}

type jsonEvidence struct {
	Label  string `json:"label"`
	Value  num    `json:"value"`
	Unit   string `json:"unit"`
	Source string `json:"source"`
}

type jsonLocation struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line,omitempty"`
}

// optMB returns nil for the -1 that marks a size the format lacks.
func optMB(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// JSON writes the diagnosis as one indented JSON document: what the
// evidence was, each kind of evidence's section, the findings and what to
// do first (docs/json.md).
func JSON(w io.Writer, d *diagnose.Diagnosis, toolVersion string) error {
	doc := object{{"schema_version", SchemaVersion}, {"tool", "gcdoctor"}}
	if toolVersion != "" {
		doc = append(doc, Field{"tool_version", toolVersion})
	}
	if d.GoVersion != "" {
		doc = append(doc, Field{"go_version", d.GoVersion})
	}
	if d.GOGC != "" {
		doc = append(doc, Field{"gogc", d.GOGC})
	}
	doc = append(doc, Field{"partial", d.Log.Partial()})
	if r := d.Run; r != nil {
		jr := jsonRun{Command: r.Command, WallS: num(r.WallS), PeakRSSBytes: r.PeakRSS}
		if r.ExitKnown {
			code := r.ExitCode
			jr.ExitCode = &code
		}
		doc = append(doc, Field{"run", jr})
	}
	for _, s := range build(d, nil) {
		doc = append(doc, s.JSON...)
	}
	findings := []jsonFinding{}
	for _, f := range d.Findings {
		jf := jsonFinding{ID: f.ID, Severity: f.Severity.String(), Title: f.Title, Message: f.Message,
			Evidence: []jsonEvidence{}, Where: locationsJSON(f.Where), Remedy: f.Remedy, Verify: f.Verify,
			Caveats: nonNil(f.Caveats), Segments: nonNil(f.Segments), Also: f.Also}
		for _, e := range f.Evidence {
			jf.Evidence = append(jf.Evidence, jsonEvidence{Label: e.Label, Value: num(e.Value), Unit: e.Unit, Source: e.Source})
		}
		findings = append(findings, jf)
	}
	doc = append(doc, Field{"findings", findings}, Field{"notes", nonNil(d.Caveats)})
	if d.FirstActions {
		var acts []jsonAction
		for i, f := range d.Actions(5) {
			acts = append(acts, jsonAction{Rank: i + 1, ID: f.ID, Severity: f.Severity.String(), Title: f.Title, Remedy: f.Remedy,
				Verify: f.Verify, Command: f.Command, Where: locationsJSON(f.Where)})
		}
		if len(acts) > 0 {
			doc = append(doc, Field{"actions", acts})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

func locationsJSON(ls []diagnose.Location) []jsonLocation {
	out := []jsonLocation{}
	for _, l := range ls {
		out = append(out, jsonLocation{File: l.File, Line: l.Line, EndLine: l.EndLine})
	}
	return out
}

// gctraceJSON is the gctrace's part of the document: the inputs read, each
// process with its summary (and cycles when kept), and the totals. The
// keys are there, empty, without a log.
func gctraceJSON(d *diagnose.Diagnosis) []Field {
	inputs := []jsonInput{}
	for _, in := range d.Log.Inputs {
		ji := jsonInput{Name: in.Name, Lines: in.Lines, Bytes: in.Bytes, Cycles: in.Kinds[gctrace.KindCycle],
			Segments: in.Segments, Partial: in.Partial, ErrorCount: in.NErrors, Errors: []jsonSyntax{}, Kinds: map[string]int{}}
		for _, e := range in.Errors {
			ji.Errors = append(ji.Errors, jsonSyntax{Line: e.Line, Column: e.Col, Message: e.Msg})
		}
		for k, n := range in.Kinds {
			if n > 0 {
				ji.Kinds[gctrace.Kind(k).String()] = n
			}
		}
		inputs = append(inputs, ji)
	}
	segments := []jsonSegment{}
	for _, s := range d.Log.Segments {
		js := jsonSegment{
			Index: s.Index, Input: s.Input, FirstLine: s.FirstLine, LastLine: s.LastLine,
			Label: s.Label, Process: s.Process, Format: s.Format.String(),
			Summary: summaryJSON(&s.Summary), Warnings: nonNil(s.Caveats),
		}
		for i := range s.Cycles {
			js.Cycles = append(js.Cycles, cycleJSON(&s.Cycles[i]))
		}
		segments = append(segments, js)
	}
	totals := jsonLogTotals{Segments: len(d.Log.Segments), Cycles: d.Log.Cycles(), SegmentsDropped: d.Log.SegmentsDropped}
	return []Field{{"inputs", inputs}, {"segments", segments}, {"totals", totals}}
}

func summaryJSON(s *gctrace.Summary) jsonSummary {
	var rt *int
	if s.RuntimeCPUPercent >= 0 {
		v := s.RuntimeCPUPercent
		rt = &v
	}
	return jsonSummary{
		Cycles: s.Cycles, ForcedCycles: s.Forced, PeriodicCycles: s.Periodic,
		FirstGC: s.FirstGC, LastGC: s.LastGC, MissingCycles: s.Missing, Procs: s.Procs,
		StartS: num(s.StartS), EndS: num(s.EndS), WallS: num(s.WallS),
		GCPerSecond: num(s.GCPerSecond), MaxGapS: num(s.MaxGapS),
		Pauses: s.Pauses, PauseTotalMS: num(s.PauseTotalMS),
		P50PauseMS: num(s.P50PauseMS), P95PauseMS: num(s.P95PauseMS), P99PauseMS: num(s.P99PauseMS),
		MaxPauseMS: num(s.MaxPauseMS), MaxPauseLine: s.MaxPauseLine, PausesApprox: s.PausesApprox,
		GCCPUPercent: num(s.GCCPUPercent), RuntimeCPUPercent: rt, IdleCPUPercent: num(s.IdleCPUPercent),
		AssistPercent: num(s.AssistPercent), MarkWallPercent: num(s.MarkWallPct), GCCPUMS: num(s.GCCPUMS),
		AllocMBPerS: num(s.AllocMBPerS), AllocatedMB: num(s.AllocatedMB),
		LiveFirstMB: optMB(s.LiveFirstMB), LiveLastMB: optMB(s.LiveLastMB),
		LiveMinMB: optMB(s.LiveMinMB), LiveMaxMB: optMB(s.LiveMaxMB), LiveMedianMB: num(s.LiveMedianMB),
		LiveSlope: num(s.LiveSlope), LiveR2: num(s.LiveR2),
		PeakHeapMB: s.PeakHeapMB, PeakHeapLine: s.PeakHeapLine, PeakTotalMB: s.PeakTotalMB,
		MinGoalMB: optMB(s.MinGoalMB), MaxGoalMB: optMB(s.MaxGoalMB),
		MaxStacksMB: optMB(s.MaxStacksMB), MaxGlobalsMB: optMB(s.MaxGlobalsMB),
		OvershootCycles: s.OvershootCycles, MaxOvershootPct: num(s.MaxOvershootPct),
		AtGoalCycles: s.AtGoalCycles, BackToBackCycles: s.BackToBackCycles, MinHeapCycles: s.MinHeapCycles,
	}
}
