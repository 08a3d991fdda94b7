package report

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

// Control sequences planted in the evidence: a title set (OSC), a screen
// clear, a carriage return that would overwrite a line, a hyperlink, and a
// bidirectional override.
const (
	ctlGroup = "main.\x1b]0;pwned\x07worker\u202e"
	ctlMsg   = " \x1b[2J\x1b[Hcleared\rOVERWRITTEN"
	ctlNote  = "see \x1b]8;;http://evil.example/\x07here\x1b]8;;\x07"
)

// controlDiagnosis is the hostile fixture with control sequences in a
// goroutine group, a finding, a note, a log name and a run's command.
func controlDiagnosis(t *testing.T) *diagnose.Diagnosis {
	d := hostileAll.diagnosis(t)
	for i := range d.Trace.Result.Groups {
		if !d.Trace.Result.Groups[i].Runtime {
			d.Trace.Result.Groups[i].Name = ctlGroup
			break
		}
	}
	d.Findings[0].Message += ctlMsg
	d.Caveats = append(d.Caveats, ctlNote)
	d.Log.Inputs[0].Name += "\x1b[31m"
	d.Run = &diagnose.RunInfo{Command: []string{"./srv", "\x1b]0;x\x07"}, ExitKnown: true}
	return d
}

var dangerous = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")

// TestNoControlSequences renders a diagnosis full of control sequences in
// every format for people: none reaches the output as it is; with colour,
// only the report's own styles are escape sequences. The charts stay
// well-formed XML.
func TestNoControlSequences(t *testing.T) {
	d := controlDiagnosis(t)
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		if err := Text(&b, d, TextOptions{Color: color}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if color {
			out = regexp.MustCompile(`\x1b\[(0|1|2|31|33|36)m`).ReplaceAllString(out, "")
		}
		if loc := dangerous.FindStringIndex(out); loc != nil {
			t.Errorf("text (color %v) lets %q through: …%s…", color, out[loc[0]:loc[1]], out[max(loc[0]-40, 0):min(loc[1]+20, len(out))])
		}
		if !strings.Contains(out, `\x1b]0;pwned\x07`) || !strings.Contains(out, `\x1b[2J\x1b[Hcleared`) {
			t.Errorf("text (color %v) does not show the escaped sequences", color)
		}
	}
	var md, page bytes.Buffer
	if err := Markdown(&md, d, "test"); err != nil {
		t.Fatal(err)
	}
	if loc := dangerous.FindIndex(md.Bytes()); loc != nil {
		t.Errorf("markdown lets %q through", md.Bytes()[loc[0]:loc[1]])
	}
	if err := HTML(&page, d, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if loc := dangerous.FindIndex(page.Bytes()); loc != nil {
		t.Errorf("HTML lets %q through", page.Bytes()[loc[0]:loc[1]])
	}
	// Each chart decodes and parses as XML.
	src := strings.ReplaceAll(page.String(), "&#43;", "+")
	charts := regexp.MustCompile(`data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)`).FindAllStringSubmatch(src, -1)
	if len(charts) == 0 {
		t.Fatal("no charts in the page")
	}
	for _, c := range charts {
		svg, err := base64.StdEncoding.DecodeString(c[1])
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(bytes.NewReader(svg))
		for {
			if _, err := dec.Token(); err != nil {
				if err.Error() != "EOF" {
					t.Errorf("chart is not well-formed XML: %v", err)
				}
				break
			}
		}
	}
}
