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
	"github.com/gcdoctor/gcdoctor/internal/terminal"
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
	"lastIndex":     func(cells []string) int { return len(cells) - 1 },
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

// htmlSection is a section as the page shows it: with its charts, and
// notes on the charts it cannot draw.
type htmlSection struct {
	*Section
	IntroLine string
	Charts    []*chart
	Missing   []string
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
		Notes:       d.Caveats,
	}
	if len(d.Findings) > 0 {
		pg.Severity = d.Findings[0].Severity.String()
	}
	if d.FirstActions {
		pg.Actions = d.Actions(5)
	}
	pg.Run = runLine(d)
	for _, sec := range build(d, nil) {
		hs := &htmlSection{Section: sec, IntroLine: sec.Intro}
		if sec.Source != "" {
			hs.IntroLine = strings.TrimSuffix(sec.Source+": "+sec.Intro, ": ")
		}
		hs.IntroLine = sentence(hs.IntroLine)
		if sec.charts != nil {
			var err error
			if hs.Charts, hs.Missing, err = sec.charts(opt.MaxPoints); err != nil {
				return err
			}
		}
		if sec.empty() && len(hs.Charts) == 0 && len(hs.Missing) == 0 {
			continue
		}
		pg.Sections = append(pg.Sections, hs)
	}
	// Control characters and bidirectional overrides from the evidence are
	// shown visibly rather than reordering or hiding the page's text.
	return pageTmpl.Execute(&terminal.Writer{W: w}, pg)
}

// runLine describes a program gcdoctor ran, "" when it ran none.
func runLine(d *diagnose.Diagnosis) string {
	r := d.Run
	if r == nil {
		return ""
	}
	s := fmt.Sprintf("%s exited with status %s after %s s", strings.Join(r.Command, " "), r.Exit(), fmtNum(r.WallS))
	if r.PeakRSS > 0 {
		s += ", peak RSS " + fmtBytes(r.PeakRSS)
	}
	return s + " (" + strings.Join(runEnv(r), ", ") + ")."
}
