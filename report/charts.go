package report

import (
	"bytes"
	"fmt"
	"image/color"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/terminal"
)

// chart is one rendered figure of the HTML report.
type chart struct {
	ID      string // anchor, stable across runs
	Title   string
	Caption string // what is drawn and from which evidence, with units
	Alt     string // the figure's gist for readers who cannot see it
	SVG     []byte
}

// Colours from the Okabe–Ito palette, which stays distinct for the common
// forms of colour blindness.
var (
	colBlue    = color.RGBA{0x00, 0x72, 0xb2, 0xff}
	colOrange  = color.RGBA{0xe6, 0x9f, 0x00, 0xff}
	colGreen   = color.RGBA{0x00, 0x9e, 0x73, 0xff}
	colPurple  = color.RGBA{0xcc, 0x79, 0xa7, 0xff}
	colRed     = color.RGBA{0xd5, 0x5e, 0x00, 0xff}
	colSky     = color.RGBA{0x56, 0xb4, 0xe9, 0xff}
	colGrey    = color.RGBA{0x99, 0x99, 0x99, 0xff}
	colGridRGB = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
)

// Charts are drawn at about the size the page shows them (62rem), so their
// text reads at the size it was set in.
const (
	chartWidth  = 9.5 * vg.Inch
	chartHeight = 3.8 * vg.Inch
)

// newPlot returns a plot in the report's style: sans-serif text (the
// Liberation faces gonum measures with are metric-compatible with Arial,
// which the browser substitutes; see svgBytes) and a light grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	sans := func(size vg.Length) font.Font {
		return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
	}
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(13)
	p.Title.Padding = 8
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(11)
		a.Tick.Label.Font = sans(10)
		a.Tick.Marker = plainTicks{}
	}
	p.Legend.TextStyle.Font = sans(10)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.Padding = vg.Points(3)
	p.Legend.XOffs = vg.Points(8)
	p.Legend.ThumbnailWidth = 0.25 * vg.Inch
	grid := plotter.NewGrid()
	grid.Vertical.Color = colGridRGB
	grid.Horizontal.Color = colGridRGB
	p.Add(grid)
	return p
}

// plainTicks labels gonum's default ticks as people write numbers: "25",
// not "25.00", and "0.6", not the float sum "0.6000000000000001".
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = tickLabel(ts[i].Value)
		}
	}
	return ts
}

// tickLabel rounds v to 6 significant digits, more than any tick step
// needs, and prints it without exponent or trailing zeros.
func tickLabel(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// legendRight moves the legend to the right, inside the frame.
func legendRight(p *plot.Plot) {
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(8)
}

// headroom raises the top of the y axis so that a legend in the top corner
// does not hide the data under it.
func headroom(p *plot.Plot, entries int) {
	p.Y.Max += (p.Y.Max - p.Y.Min) * 0.1 * float64(entries)
}

// svgBytes renders a plot as a standalone SVG document.
func svgBytes(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	c := vgsvg.New(w, h)
	// A margin keeps the outermost labels off the frame the page draws.
	const m = 8
	p.Draw(draw.Crop(draw.New(c), m, -m, m, -m))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	// gonum names the face it measured text with and nothing else; embedding
	// the font would add hundreds of KB per chart. Arial and Helvetica have
	// Liberation Sans's metrics, so labels keep the widths the layout assumed.
	out := bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;"))
	// A label from the evidence may hold control characters, which XML
	// forbids: written visibly, the image stays well-formed.
	var clean bytes.Buffer
	if _, err := (&terminal.Writer{W: &clean}).Write(out); err != nil {
		return nil, err
	}
	return clean.Bytes(), nil
}

// series is one line of a chart and its legend entry.
type series struct {
	name   string
	xys    plotter.XYs
	c      color.Color
	dashed bool
}

// addLines draws each series that has points, with its legend entry.
func addLines(p *plot.Plot, ss []series) error {
	for _, sr := range ss {
		if len(sr.xys) == 0 {
			continue
		}
		l, err := line(sr.xys, sr.c, sr.dashed)
		if err != nil {
			return err
		}
		p.Add(l)
		p.Legend.Add(sr.name, l)
	}
	return nil
}

func line(xys plotter.XYs, c color.Color, dashed bool) (*plotter.Line, error) {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.Color = c
	l.Width = vg.Points(1.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return l, nil
}

func scatter(xys plotter.XYs, c color.Color, shape draw.GlyphDrawer) (*plotter.Scatter, error) {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	s.Color = c
	s.Radius = vg.Points(2)
	s.Shape = shape
	return s, nil
}

// buckets splits n items into at most max runs of consecutive items, for
// downsampling a series to what a chart can show; nil when n ≤ max.
func buckets(n, max int) [][2]int {
	if max <= 0 || n <= max {
		return nil
	}
	size := (n + max - 1) / max
	var out [][2]int
	for i := 0; i < n; i += size {
		out = append(out, [2]int{i, min(i+size, n)})
	}
	return out
}

// cycleX returns the x value of a cycle: seconds since the process started,
// or the cycle number when the log format has no timestamps (before Go 1.5).
func cycleX(c *gctrace.Cycle, timed bool) float64 {
	if timed {
		return c.At
	}
	return float64(c.Num)
}

func allTimed(cs []gctrace.Cycle) bool {
	for i := range cs {
		if !cs[i].HasAt {
			return false
		}
	}
	return true
}

// segmentName says which process a chart shows.
func segmentName(d *diagnose.Diagnosis, s *gctrace.Segment) string {
	name := fmt.Sprintf("%s, %s", s.Input, linesWord(s))
	if len(d.Log.Segments) > 1 {
		name = fmt.Sprintf("process %d of %d (%s), the one with the most GC work", s.Index, len(d.Log.Segments), name)
	}
	return name
}

// sampled says how a downsampled series was reduced, for a caption.
func sampled(n int, bs [][2]int, how string) string {
	if bs == nil {
		return ""
	}
	return fmt.Sprintf(" The %d cycles are drawn as %d points, each %s of %d consecutive cycles.", n, len(bs), how, bs[0][1]-bs[0][0])
}

// cycleAxis says whether every cycle has a timestamp, and labels the x
// axis accordingly: time when they do, the cycle number when they do not.
func cycleAxis(cs []gctrace.Cycle) (timed bool, label string) {
	if allTimed(cs) {
		return true, "time since the process started (s)"
	}
	return false, "GC cycle (number; this log format has no timestamps)"
}

// heapChart draws the heap of the busiest process over time from gctrace:
// the heap in use when marking ended, the live heap it marked, and the goal.
func heapChart(d *diagnose.Diagnosis, s *gctrace.Segment, maxPoints int) (*chart, error) {
	cs := s.Cycles
	timed, xLabel := cycleAxis(cs)
	p := newPlot("Heap over time", xLabel, "heap (MiB)")
	var inuse, live, goal plotter.XYs
	add := func(xys *plotter.XYs, x float64, v int64) {
		if v >= 0 {
			*xys = append(*xys, plotter.XY{X: x, Y: float64(v)})
		}
	}
	bs := buckets(len(cs), maxPoints)
	if bs == nil {
		for i := range cs {
			x := cycleX(&cs[i], timed)
			add(&inuse, x, cs[i].HeapEnd)
			add(&live, x, cs[i].HeapLive)
			add(&goal, x, cs[i].HeapGoal)
		}
	} else {
		for _, b := range bs {
			x := cycleX(&cs[b[0]], timed)
			var e, l, g int64 = -1, -1, -1
			for i := b[0]; i < b[1]; i++ {
				e, l, g = max(e, cs[i].HeapEnd), max(l, cs[i].HeapLive), max(g, cs[i].HeapGoal)
			}
			add(&inuse, x, e)
			add(&live, x, l)
			add(&goal, x, g)
		}
	}
	inuseName := "in use when marking ended"
	pre15 := cs[0].Format == gctrace.FormatPre15
	if pre15 {
		inuseName = "heap as printed (B of “A -> B MB”)"
	}
	if err := addLines(p, []series{
		{inuseName, inuse, colBlue, false},
		{"live (marked by the cycle)", live, colGreen, false},
		{"goal", goal, colRed, true},
	}); err != nil {
		return nil, err
	}
	p.Y.Min = 0
	headroom(p, 3)
	caption := fmt.Sprintf("From the gctrace of %s: per cycle, the heap in use when marking ended, the heap it marked live and the heap goal, in MiB as the runtime prints them (rounded down).", segmentName(d, s))
	if pre15 {
		caption = fmt.Sprintf("From the gctrace of %s, in MiB as the runtime prints them (rounded down). This log format prints neither the live heap nor the goal, only “A -> B MB”: B is the heap after the collection in Go 1.2, and the heap when the collection started in Go 1.3 and 1.4.", segmentName(d, s))
	}
	caption += sampled(len(cs), bs, "the largest")
	svg, err := svgBytes(p, chartWidth, chartHeight)
	if err != nil {
		return nil, err
	}
	sm := &s.Summary
	alt := fmt.Sprintf("Heap over %d GC cycles: peak %d MB", len(cs), sm.PeakHeapMB)
	if sm.LiveFirstMB >= 0 {
		alt += fmt.Sprintf(", live heap from %d to %d MB", sm.LiveFirstMB, sm.LiveLastMB)
	}
	if sm.MaxGoalMB >= 0 {
		alt += fmt.Sprintf(", goal %d–%d MB", sm.MinGoalMB, sm.MaxGoalMB)
	}
	return &chart{ID: "heap", Title: "Heap over time", Caption: caption, Alt: alt + ".", SVG: svg}, nil
}

// traceHeapChart draws the live heap and goal from an execution trace, for
// evidence without gctrace cycles.
func traceHeapChart(r *exectrace.Result) (*chart, error) {
	p := newPlot("Heap over time", "time since the trace started (ms)", "heap (MiB)")
	var live, goal plotter.XYs
	for _, h := range r.GC.Heap {
		live = append(live, plotter.XY{X: h.AtMS, Y: float64(h.LiveBytes) / (1 << 20)})
		if h.GoalBytes > 0 {
			goal = append(goal, plotter.XY{X: h.AtMS, Y: float64(h.GoalBytes) / (1 << 20)})
		}
	}
	if err := addLines(p, []series{{"heap objects (largest in each interval)", live, colBlue, false}, {"goal", goal, colRed, true}}); err != nil {
		return nil, err
	}
	p.Y.Min = 0
	headroom(p, 2)
	svg, err := svgBytes(p, chartWidth, chartHeight)
	if err != nil {
		return nil, err
	}
	return &chart{ID: "heap", Title: "Heap over time",
		Caption: fmt.Sprintf("From the execution trace: the size of the heap objects and the heap goal in %d intervals, in MiB.", len(r.GC.Heap)),
		Alt:     fmt.Sprintf("Heap over the trace: peak %s, largest goal %s.", fmtBytes(int64(r.GC.HeapPeakBytes)), fmtBytes(int64(r.GC.HeapGoalMaxBytes))),
		SVG:     svg}, nil
}

// pauseTimeline draws each stop-the-world phase of every cycle over time.
func pauseTimeline(d *diagnose.Diagnosis, s *gctrace.Segment, maxPoints int) (*chart, error) {
	cs := s.Cycles
	timed, xLabel := cycleAxis(cs)
	p := newPlot("GC pauses over time", xLabel, "stop-the-world pause (ms)")
	pre15 := cs[0].Format == gctrace.FormatPre15
	names := []string{"sweep termination", "mark termination"}
	if pre15 {
		names = []string{"whole collection (stop the world)"}
	}
	var pts [2]plotter.XYs
	addCycle := func(c *gctrace.Cycle) {
		ps, n := c.Pauses()
		for k := 0; k < n; k++ {
			pts[k] = append(pts[k], plotter.XY{X: cycleX(c, timed), Y: ps[k]})
		}
	}
	bs := buckets(len(cs), maxPoints)
	if bs == nil {
		for i := range cs {
			addCycle(&cs[i])
		}
	} else {
		// Keep the longest pause of each run: the outliers are the point.
		for _, b := range bs {
			best := b[0]
			for i := b[0]; i < b[1]; i++ {
				if cs[i].PauseTotal() > cs[best].PauseTotal() {
					best = i
				}
			}
			addCycle(&cs[best])
		}
	}
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}}
	cols := []color.Color{colBlue, colRed}
	for k, name := range names {
		if len(pts[k]) == 0 {
			continue
		}
		sc, err := scatter(pts[k], cols[k], shapes[k])
		if err != nil {
			return nil, err
		}
		p.Add(sc)
		p.Legend.Add(name, sc)
	}
	p.Y.Min = 0
	headroom(p, len(names))
	svg, err := svgBytes(p, chartWidth, chartHeight)
	if err != nil {
		return nil, err
	}
	sm := &s.Summary
	caption := fmt.Sprintf("From the gctrace of %s: each point is one stop-the-world phase of a cycle, from the line's clock times, in ms.", segmentName(d, s))
	caption += sampled(len(cs), bs, "the cycle with the longest pause")
	return &chart{ID: "pauses", Title: "GC pauses over time", Caption: caption,
		Alt: fmt.Sprintf("%s: p50 %s ms, p99 %s ms, max %s ms.", plural(sm.Pauses, "pause"), fmtNum(sm.P50PauseMS), fmtNum(sm.P99PauseMS), fmtNum(sm.MaxPauseMS)),
		SVG: svg}, nil
}

// pauseEdges are the histogram's bucket bounds in ms: 1-2-5 steps, so a
// long tail stays readable next to the bulk.
var pauseEdges = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}

// histogram counts pauses (ms) per bucket of pauseEdges and labels the
// buckets, trimming empty ones at both ends.
func histogram(pauses []float64) (labels []string, counts plotter.Values) {
	n := make([]float64, len(pauseEdges)+1)
	for _, v := range pauses {
		i := 0
		for i < len(pauseEdges) && v >= pauseEdges[i] {
			i++
		}
		n[i]++
	}
	lo, hi := 0, len(n)-1
	for lo < hi && n[lo] == 0 {
		lo++
	}
	for hi > lo && n[hi] == 0 {
		hi--
	}
	for i := lo; i <= hi; i++ {
		switch {
		case i == 0:
			labels = append(labels, fmt.Sprintf("< %g", pauseEdges[0]))
		case i == len(pauseEdges):
			labels = append(labels, fmt.Sprintf("≥ %g", pauseEdges[i-1]))
		default:
			labels = append(labels, fmt.Sprintf("%g–%g", pauseEdges[i-1], pauseEdges[i]))
		}
		counts = append(counts, n[i])
	}
	return labels, counts
}

// pauseHistogram draws how pause lengths are distributed.
func pauseHistogram(id, title, caption, alt string, pauses []float64) (*chart, error) {
	labels, counts := histogram(pauses)
	p := newPlot(title, "pause (ms)", "pauses (count)")
	bc, err := plotter.NewBarChart(counts, vg.Points(24))
	if err != nil {
		return nil, err
	}
	bc.Color = colBlue
	bc.LineStyle.Width = 0
	p.Add(bc)
	p.NominalX(labels...)
	// Half a slot each side, so the first and last bars are whole.
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	p.Y.Min = 0
	svg, err := svgBytes(p, chartWidth, chartHeight)
	if err != nil {
		return nil, err
	}
	return &chart{ID: id, Title: title, Caption: caption, Alt: alt, SVG: svg}, nil
}

func gctracePauses(cs []gctrace.Cycle) []float64 {
	var out []float64
	for i := range cs {
		ps, n := cs[i].Pauses()
		out = append(out, ps[:n]...)
	}
	return out
}

// gcCPUChart draws the collector's CPU share over time: per cycle, from the
// CPU times of each line, and cumulative, as the runtime prints it.
func gcCPUChart(d *diagnose.Diagnosis, s *gctrace.Segment, maxPoints int) (*chart, error) {
	cs := s.Cycles
	var per, cum plotter.XYs
	for i := range cs {
		if cs[i].HasAt && cs[i].Util >= 0 {
			cum = append(cum, plotter.XY{X: cs[i].At, Y: float64(cs[i].Util)})
		}
	}
	// A cycle's share is its GC CPU time over the CPU the program had until
	// the next cycle started; the last cycle has no such interval.
	type interval struct{ at, gcMS, availMS float64 }
	var ivs []interval
	for i := 0; i+1 < len(cs); i++ {
		a, b := &cs[i], &cs[i+1]
		dt := (b.At - a.At) * 1000 * float64(max(a.Procs, 1))
		if !a.HasAt || !b.HasAt || dt <= 0 {
			continue
		}
		ivs = append(ivs, interval{a.At, a.GCCPU(), dt})
	}
	bs := buckets(len(ivs), maxPoints)
	if bs == nil {
		for _, iv := range ivs {
			per = append(per, plotter.XY{X: iv.at, Y: 100 * iv.gcMS / iv.availMS})
		}
	} else {
		for _, b := range bs {
			var gc, avail float64
			for _, iv := range ivs[b[0]:b[1]] {
				gc += iv.gcMS
				avail += iv.availMS
			}
			per = append(per, plotter.XY{X: ivs[b[0]].at, Y: 100 * gc / avail})
		}
	}
	if len(per) == 0 && len(cum) == 0 {
		return nil, nil
	}
	p := newPlot("GC CPU over time", "time since the process started (s)", "GC share of the CPU (%)")
	if len(per) > 0 {
		sc, err := scatter(per, colOrange, draw.CircleGlyph{})
		if err != nil {
			return nil, err
		}
		p.Add(sc)
		p.Legend.Add("per cycle", sc)
	}
	if len(cum) > 0 {
		l, err := line(cum, colBlue, false)
		if err != nil {
			return nil, err
		}
		p.Add(l)
		p.Legend.Add("cumulative since start (runtime)", l)
	}
	p.Y.Min = 0
	if p.Y.Max < 10 {
		p.Y.Max = 10 // a flat few percent should look small, not fill the chart
	}
	headroom(p, 2)
	svg, err := svgBytes(p, chartWidth, chartHeight)
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("From the gctrace of %s. Per cycle: the cycle's GC CPU time (every phase but idle marking) over the CPU time the program had until the next cycle started (that interval × GOMAXPROCS). Cumulative: the percentage the runtime prints on each line, GC's share since the process started.", segmentName(d, s))
	if bs != nil {
		caption += fmt.Sprintf(" The per-cycle share is drawn as %d points, each over %d consecutive intervals.", len(bs), bs[0][1]-bs[0][0])
	}
	alt := "GC CPU over time"
	if gctrace.Valid(s.Summary.GCCPUPercent) {
		alt += fmt.Sprintf(": %s %% over the whole log", fmtNum(s.Summary.GCCPUPercent))
	}
	return &chart{ID: "gc-cpu", Title: "GC CPU over time", Caption: caption, Alt: alt + ".", SVG: svg}, nil
}

// tracePauseTimeline draws every stop-the-world pause of an execution
// trace, the collector's apart from the others.
func tracePauseTimeline(r *exectrace.Result, maxPoints int) (*chart, error) {
	scale, unit := 1.0, "ms"
	if traceDurationMS(r) > 5000 {
		scale, unit = 1e-3, "s"
	}
	stops := r.GC.Stops
	idx := make([]int, len(stops))
	for i := range idx {
		idx[i] = i
	}
	if bs := buckets(len(stops), maxPoints); bs != nil {
		idx = idx[:0]
		for _, b := range bs {
			best := b[0]
			for i := b[0]; i < b[1]; i++ {
				if stops[i].DurationMS > stops[best].DurationMS {
					best = i
				}
			}
			idx = append(idx, best)
		}
	}
	var gc, other plotter.XYs
	for _, i := range idx {
		pt := plotter.XY{X: stops[i].AtMS * scale, Y: stops[i].DurationMS}
		if stops[i].GC {
			gc = append(gc, pt)
		} else {
			other = append(other, pt)
		}
	}
	p := newPlot("Stop-the-world pauses over time", "time since the trace started ("+unit+")", "pause (ms)")
	for _, sr := range []struct {
		name  string
		xys   plotter.XYs
		c     color.Color
		shape draw.GlyphDrawer
	}{{"GC (sweep and mark termination)", gc, colBlue, draw.CircleGlyph{}}, {"other (ReadMemStats, profiles, …)", other, colPurple, draw.TriangleGlyph{}}} {
		if len(sr.xys) == 0 {
			continue
		}
		sc, err := scatter(sr.xys, sr.c, sr.shape)
		if err != nil {
			return nil, err
		}
		p.Add(sc)
		p.Legend.Add(sr.name, sc)
	}
	p.X.Min = 0
	p.Y.Min = 0
	headroom(p, 2)
	svg, err := svgBytes(p, chartWidth, chartHeight)
	if err != nil {
		return nil, err
	}
	caption := "From the execution trace: each point is one stop-the-world pause at the time it started, in ms, with the runtime's reason split into the collector's own and the rest."
	if len(idx) < len(stops) {
		caption += fmt.Sprintf(" The %d pauses are drawn as %d points, each the longest of its run.", len(stops), len(idx))
	}
	if r.GC.StopsDropped > 0 {
		caption += fmt.Sprintf(" %s counted but not listed in the trace summary.", countOf(r.GC.StopsDropped, "later pause was", "later pauses were"))
	}
	st := r.GC.STW
	return &chart{ID: "trace-pauses", Title: "Stop-the-world pauses over time", Caption: caption,
		Alt: fmt.Sprintf("%s: p50 %s ms, p99 %s ms, max %s ms.", plural(st.Count, "pause"), fmtNum(st.P50MS), fmtNum(st.P99MS), fmtNum(st.MaxMS)),
		SVG: svg}, nil
}

// mmuChart draws the minimum mutator utilisation over window sizes.
func mmuChart(r *exectrace.Result) (*chart, error) {
	var util, bounded plotter.XYs
	for _, pt := range r.MMU.Points {
		if pt.WindowMS <= 0 {
			continue
		}
		util = append(util, plotter.XY{X: pt.WindowMS, Y: pt.Util * 100})
		bounded = append(bounded, plotter.XY{X: pt.WindowMS, Y: pt.Bounded * 100})
	}
	p := newPlot("Minimum mutator utilisation", "window (ms, log scale)", "CPU left to the program (%)")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	for _, sr := range []series{{"lowest at this or any longer window", bounded, colRed, true}, {"MMU", util, colBlue, false}} {
		// The bounded curve often equals the MMU: drawn first and wider,
		// it shows around the MMU instead of vanishing under it.
		l, pts, err := plotter.NewLinePoints(sr.xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = sr.c, vg.Points(1.5)
		pts.Color, pts.Radius, pts.Shape = sr.c, vg.Points(2), draw.CircleGlyph{}
		if sr.dashed {
			l.Width = vg.Points(4)
			l.Color = color.RGBA{0xd5, 0x5e, 0x00, 0x80}
			pts.Radius = vg.Points(3.5)
		}
		p.Add(l, pts)
		p.Legend.Add(sr.name, l, pts)
	}
	p.Y.Min, p.Y.Max = 0, 100
	legendRight(p)
	p.Legend.Top = false
	svg, err := svgBytes(p, chartWidth, chartHeight)
	if err != nil {
		return nil, err
	}
	var at []string
	for _, w := range []float64{1, 10, 100} {
		for _, pt := range r.MMU.Points {
			if pt.WindowMS == w {
				at = append(at, fmt.Sprintf("%g ms: %s %%", w, fmtNum(pt.Bounded*100)))
			}
		}
	}
	return &chart{ID: "mmu", Title: "Minimum mutator utilisation",
		Caption: "From the execution trace: for each window length, the smallest share of the CPUs left to the program in any window of that length (pauses and GC work take the rest). The wide line is the lowest over this and every longer window, the figure to hold a latency objective against; where it is hidden it equals the MMU.",
		Alt:     "MMU by window: " + strings.Join(at, ", ") + ".",
		SVG:     svg}, nil
}

// label fits a name into a bar chart's axis.
func label(s string, n int) string {
	return truncate(oneLine(s), n)
}

// sitesChart draws the top allocation sites by allocated bytes.
func sitesChart(d *diagnose.Diagnosis) (*chart, error) {
	sites := d.HeapSites()
	sites = sites[:min(len(sites), 10)]
	var maxB int64
	for _, s := range sites {
		maxB = max(maxB, s.AllocBytes)
	}
	unit, div := "MiB", float64(1<<20)
	switch {
	case maxB >= 10<<30:
		unit, div = "GiB", 1<<30
	case maxB < 1<<20:
		unit, div = "KiB", 1<<10
	}
	// Nominal axes count up from the bottom: reverse so #1 is on top.
	var vals plotter.Values
	var names []string
	ends := plotter.XYLabels{}
	for i := len(sites) - 1; i >= 0; i-- {
		s := sites[i]
		v := float64(s.AllocBytes) / div
		vals = append(vals, v)
		names = append(names, label(fmt.Sprintf("%s:%d %s", filepath.Base(s.File), s.Line, shortFunc(s.Function)), 48))
		// The size at the bar's end: one site often dwarfs the rest, whose
		// bars are then too short to read.
		ends.XYs = append(ends.XYs, plotter.XY{X: v, Y: float64(len(vals) - 1)})
		ends.Labels = append(ends.Labels, fmt.Sprintf("%s (%.1f %%)", fmtBytes(s.AllocBytes), s.Share*100))
	}
	p := newPlot("Top allocation sites", "allocated ("+unit+")", "")
	bc, err := plotter.NewBarChart(vals, vg.Points(14))
	if err != nil {
		return nil, err
	}
	bc.Horizontal = true
	bc.Color = colBlue
	bc.LineStyle.Width = 0
	p.Add(bc)
	lb, err := plotter.NewLabels(ends)
	if err != nil {
		return nil, err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = font.Font{Typeface: "Liberation", Variant: "Sans", Size: 9}
		lb.TextStyle[i].YAlign = draw.YCenter
	}
	lb.Offset = vg.Point{X: vg.Points(4)}
	p.Add(lb)
	p.NominalY(names...)
	p.X.Min = 0
	p.X.Max *= 1.2 // room for the label of the longest bar
	svg, err := svgBytes(p, chartWidth, barHeight(len(sites)))
	if err != nil {
		return nil, err
	}
	h := d.Heap
	caption := fmt.Sprintf("From the heap profile %s: the bytes allocated at each site (the line of your code the allocation is charged to) over the profile, in %s; %s.", h.Name, unit, topHeader(h.Top))
	alt := "Top allocation sites:"
	for _, s := range sites[:min(3, len(sites))] {
		alt += fmt.Sprintf(" %s:%d %s %s (%.1f %%);", filepath.Base(s.File), s.Line, s.Function, fmtBytes(s.AllocBytes), s.Share*100)
	}
	return &chart{ID: "sites", Title: "Top allocation sites", Caption: caption, Alt: strings.TrimSuffix(alt, ";") + ".", SVG: svg}, nil
}

// barHeight sizes a horizontal bar chart to its number of bars.
func barHeight(n int) vg.Length {
	return vg.Inch + vg.Length(n)*0.3*vg.Inch
}

// groupsChart draws where the busiest goroutine groups spent their time.
func groupsChart(r *exectrace.Result) (*chart, error) {
	groups := r.UserGroups()
	groups = groups[:min(len(groups), 8)]
	n := len(groups)
	parts := []struct {
		name string
		c    color.Color
		v    func(g *exectrace.Group) float64
	}{
		{"running", colBlue, func(g *exectrace.Group) float64 { return g.RunningMS }},
		{"runnable (waiting for a CPU)", colOrange, func(g *exectrace.Group) float64 { return g.RunnableMS }},
		{"in syscalls", colGreen, func(g *exectrace.Group) float64 { return g.SyscallMS }},
		{"blocked", colGrey, func(g *exectrace.Group) float64 { return g.Blocked.TotalMS() }},
	}
	p := newPlot("Goroutine groups", "time, summed over the group's goroutines (ms)", "")
	var names []string
	for i := n - 1; i >= 0; i-- {
		names = append(names, fmt.Sprintf("%s ×%d", label(shortFunc(groups[i].Name), 40), groups[i].Count))
	}
	var below *plotter.BarChart
	for _, part := range parts {
		var vals plotter.Values
		for i := n - 1; i >= 0; i-- {
			vals = append(vals, part.v(groups[i]))
		}
		bc, err := plotter.NewBarChart(vals, vg.Points(14))
		if err != nil {
			return nil, err
		}
		bc.Horizontal = true
		bc.Color = part.c
		bc.LineStyle.Width = 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		p.Add(bc)
		p.Legend.Add(part.name, bc)
	}
	p.NominalY(names...)
	p.X.Min = 0
	// The busiest group's bar is on top; room on its right holds the
	// legend.
	p.X.Max *= 1.45
	legendRight(p)
	svg, err := svgBytes(p, chartWidth, barHeight(max(n, 3)))
	if err != nil {
		return nil, err
	}
	caption := "From the execution trace: goroutines grouped by start function (×N goroutines), the busiest first, with the time they ran, waited for a CPU, spent in system calls and were blocked, in ms."
	if len(r.UserGroups()) > n {
		caption += fmt.Sprintf(" %s in the table below.", countOf(len(r.UserGroups())-n, "quieter group is", "quieter groups are"))
	}
	g := groups[0]
	return &chart{ID: "goroutines", Title: "Goroutine groups", Caption: caption,
		Alt: fmt.Sprintf("Busiest group %s (%d goroutines): running %s ms, runnable %s ms, blocked %s ms.", g.Name, g.Count, fmtNum(g.RunningMS), fmtNum(g.RunnableMS), fmtNum(g.Blocked.TotalMS())),
		SVG: svg}, nil
}
