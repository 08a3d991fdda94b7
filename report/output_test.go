package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOutputCheck(t *testing.T) {
	diag, pages := Names(DiagnosisFormats), Pages(DiagnosisFormats)
	for _, tt := range []struct {
		name       string
		o          Output
		given, tty bool
		names      []string
		want       string // the format settled on
		err        string
	}{
		{name: "default", o: Output{Width: 80}, want: "text"},
		{name: "json flag", o: Output{JSON: true, Width: 80}, want: "json"},
		{name: "json both", o: Output{Format: "json", JSON: true, Width: 80}, given: true, want: "json"},
		{name: "json contradicts", o: Output{Format: "html", JSON: true, Width: 80}, given: true, err: "--json is --format json: give one of them"},
		{name: "upper case", o: Output{Format: "Markdown", Width: 80}, want: "markdown"},
		{name: "unknown", o: Output{Format: "yaml", Width: 80}, err: `--format must be text, json, markdown, html or sarif, not "yaml"`},
		{name: "unknown of two", o: Output{Format: "html", Width: 80}, names: Names(CompareFormats), err: `--format must be text or json, not "html"`},
		{name: "page on terminal", o: Output{Format: "html", Width: 80}, tty: true, err: "--format html writes a web page: give -o FILE.html, or redirect standard output"},
		{name: "page to file", o: Output{Format: "html", File: "r.html", Width: 80}, tty: true, want: "html"},
		{name: "page piped", o: Output{Format: "html", Width: 80}, want: "html"},
		{name: "narrow", o: Output{Width: 39}, err: "--width must be between 40 and 1000"},
		{name: "wide", o: Output{Width: 1001}, err: "--width must be between 40 and 1000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			names := tt.names
			if names == nil {
				names = diag
			}
			err := tt.o.Check(names, pages, tt.given, tt.tty)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("Check: %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.o.Format != tt.want || tt.o.JSON != (tt.want == "json") {
				t.Errorf("settled on %q (JSON %v), want %q", tt.o.Format, tt.o.JSON, tt.want)
			}
		})
	}
}

func TestCheckColorAndWidth(t *testing.T) {
	for _, mode := range []string{"auto", "always", "never"} {
		if err := CheckColor(mode); err != nil {
			t.Errorf("CheckColor(%q): %v", mode, err)
		}
	}
	if err := CheckColor("yes"); err == nil || err.Error() != `--color must be auto, always or never, not "yes"` {
		t.Errorf("CheckColor(yes) = %v", err)
	}
	if err := CheckWidth(20, 20); err != nil {
		t.Errorf("CheckWidth(20, 20): %v", err)
	}
	if err := CheckWidth(19, 20); err == nil || err.Error() != "--width must be between 20 and 1000" {
		t.Errorf("CheckWidth(19, 20) = %v", err)
	}
}

func TestFormatsHelpAndPages(t *testing.T) {
	if got, want := FormatsHelp(CompareFormats), "text (benchstat's table), json (for programs; schema at "+DocsURL+"json.md)"; got != want {
		t.Errorf("FormatsHelp = %q, want %q", got, want)
	}
	if got := Pages(DiagnosisFormats); len(got) != 1 || got[0] != "html" {
		t.Errorf("Pages = %v, want [html]", got)
	}
	if got := Pages(CompareFormats); got != nil {
		t.Errorf("Pages(CompareFormats) = %v, want none", got)
	}
}

func TestEmit(t *testing.T) {
	doc := &Workers{}
	formats := []Format[*Workers]{{Name: "text", Render: func(w io.Writer, _ *Workers, o Options) error {
		_, err := io.WriteString(w, strings.Repeat("x", o.Width%10)+map[bool]string{true: " colour", false: ""}[o.Color])
		return err
	}}}
	var out bytes.Buffer
	o := &Output{Format: "text", Width: 83}
	if err := Emit(&out, formats, doc, o, Options{}, func(io.Writer) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if out.String() != "xxx colour" {
		t.Errorf("standard output got %q", out.String())
	}
	o.File = filepath.Join(t.TempDir(), "doc.txt")
	if err := Emit(&out, formats, doc, o, Options{}, func(w io.Writer) bool { return w == &out }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(o.File); err != nil || string(b) != "xxx" {
		t.Errorf("-o file holds %q (%v), want xxx without colour", b, err)
	}
	o.File = filepath.Join(t.TempDir(), "missing", "doc.txt")
	if err := Emit(&out, formats, doc, o, Options{}, func(io.Writer) bool { return false }); err == nil || !strings.HasPrefix(err.Error(), "-o "+o.File+": ") {
		t.Errorf("writing into a missing directory: %v, want an error naming -o", err)
	}
	o.Format = "json"
	if err := Emit(&out, formats, doc, o, Options{}, func(io.Writer) bool { return false }); err == nil {
		t.Error("a format the document lacks: no error")
	}
}

func TestExplainMarkdown(t *testing.T) {
	for _, tt := range []struct {
		format string
		tty    bool
		want   bool
	}{{"", true, false}, {"", false, true}, {"text", false, false}, {"markdown", true, true}} {
		if got, err := ExplainMarkdown(tt.format, tt.tty); err != nil || got != tt.want {
			t.Errorf("ExplainMarkdown(%q, %v) = %v, %v; want %v", tt.format, tt.tty, got, err, tt.want)
		}
	}
	if _, err := ExplainMarkdown("html", false); err == nil {
		t.Error("ExplainMarkdown(html): no error")
	}
	ids := RuleCompletions()
	if len(ids) == 0 || !strings.Contains(ids[0], "\t") {
		t.Errorf("RuleCompletions = %q, want IDs with their titles", ids)
	}
}
