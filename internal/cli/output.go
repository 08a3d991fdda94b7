package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/internal/atomicfile"
	"github.com/gcdoctor/gcdoctor/report"
)

// reportFlags are the output flags every command that prints a document
// shares: which format, where to, colour, width and, for the diagnosing
// commands, --fail-on.
type reportFlags struct {
	json   bool // --json, or --format json once validated
	format string
	output string
	color  string
	failOn string
	width  int
	// cycles lists every gctrace cycle in JSON (--cycles); set for html,
	// whose charts are drawn from them.
	cycles bool
	// sections and hideFindings narrow the text report to what a command
	// answers (see report.Options).
	sections     []string
	hideFindings bool
	// formats are what --format accepts, pages those that write a page to
	// save rather than read (see report.Format); cmd the command the flags
	// belong to, nil for commands that check values without registering
	// the flags (demo).
	formats, pages []string
	cmd            *cobra.Command
}

// registerFormats adds the output flags for a document that comes in
// formats; --fail-on only for the documents that have findings.
func registerFormats[T any](f *reportFlags, cmd *cobra.Command, formats []report.Format[T], failOn bool) {
	f.cmd = cmd
	f.formats = report.Names(formats)
	for _, x := range formats {
		if x.Page {
			f.pages = append(f.pages, x.Name)
		}
	}
	var help []string
	for _, x := range formats {
		help = append(help, x.Name+" ("+x.Doc+")")
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON (schema: "+report.DocsURL+"json.md); short for --format json")
	cmd.Flags().StringVar(&f.format, "format", "text", "output format: "+strings.Join(help, ", "))
	cmd.Flags().StringVarP(&f.output, "output", "o", "", "write to `FILE` instead of standard output (atomically, keeping its mode)")
	cmd.Flags().StringVar(&f.color, "color", "auto", "colour the text report: auto, always or never (NO_COLOR is honoured)")
	cmd.Flags().IntVar(&f.width, "width", 80, "wrap the text report at this many columns")
	if failOn {
		cmd.Flags().StringVar(&f.failOn, "fail-on", "", "exit with status 3 when a finding is at least this severe: info, warning or critical")
	}
}

// register adds the output flags of a diagnosis.
func (f *reportFlags) register(cmd *cobra.Command) {
	registerFormats(f, cmd, report.DiagnosisFormats, true)
}

// registerCycles adds --cycles, for the commands that read gctrace.
func (f *reportFlags) registerCycles(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.cycles, "cycles", false, "with --json, include every cycle (segments[].cycles[])")
}

func (f *reportFlags) validate() error {
	switch f.color {
	case "auto", "always", "never":
	default:
		return &usageError{fmt.Errorf("--color must be auto, always or never, not %q", f.color)}
	}
	if f.failOn != "" {
		if _, err := diagnose.ParseSeverity(f.failOn); err != nil {
			return &usageError{fmt.Errorf("--fail-on: %v", err)}
		}
	}
	if f.width < 40 || f.width > 1000 {
		return &usageError{fmt.Errorf("--width must be between 40 and 1000")}
	}
	return f.validateFormat()
}

// validateFormat settles --format and --json into one format, and checks
// that the report can go where it is headed before any work is done.
func (f *reportFlags) validateFormat() error {
	if f.format == "" {
		f.format = "text"
	}
	f.format = strings.ToLower(f.format)
	if f.formats == nil {
		f.formats = report.Names(report.DiagnosisFormats)
	}
	if !slices.Contains(f.formats, f.format) {
		n := len(f.formats)
		return &usageError{fmt.Errorf("--format must be %s or %s, not %q", strings.Join(f.formats[:n-1], ", "), f.formats[n-1], f.format)}
	}
	if f.json {
		if f.cmd != nil && f.cmd.Flags().Changed("format") && f.format != "json" {
			return &usageError{errors.New("--json is --format json: give one of them")}
		}
		f.format = "json"
	}
	f.json = f.format == "json"
	if f.cmd == nil {
		return nil
	}
	if slices.Contains(f.pages, f.format) && f.output == "" && isTerminal(f.cmd.OutOrStdout()) {
		// A page of HTML on a terminal helps nobody, and writing a file
		// nobody named could overwrite one.
		return &usageError{fmt.Errorf("--format %s writes a web page: give -o FILE.%s, or redirect standard output", f.format, f.format)}
	}
	if f.format == "html" {
		// The charts are drawn from every cycle, which gctrace keeps only
		// when asked.
		f.cycles = true
	}
	return nil
}

// useColor decides on ANSI colours: never when NO_COLOR is set
// (https://no-color.org), always or never when asked, else when w is a
// terminal.
func (e *env) useColor(mode string, w io.Writer) bool {
	if e.getenv("NO_COLOR") != "" || mode == "never" {
		return false
	}
	if mode == "always" {
		return true
	}
	return isTerminal(w)
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// emit renders the diagnosis, to -o FILE when given, and applies
// --fail-on.
func (e *env) emit(cmd *cobra.Command, d *diagnose.Diagnosis, f *reportFlags) error {
	if f.format == "json" && !f.cycles && d.Log != nil {
		// Kept for the model and the charts; in JSON only when asked.
		for _, s := range d.Log.Segments {
			s.Cycles = nil
		}
	}
	if err := emitDoc(e, cmd, report.DiagnosisFormats, d, f, ""); err != nil {
		return err
	}
	return e.failOn(d, f)
}

// emitDoc writes doc in the format the flags chose, to standard output or
// to -o FILE. A file is written atomically and keeps its mode; a device or
// FIFO is written through (see atomicfile).
func emitDoc[T any](e *env, cmd *cobra.Command, formats []report.Format[T], doc T, f *reportFlags, dir string) error {
	rf, ok := report.Find(formats, f.format)
	if !ok {
		return fmt.Errorf("no format %q", f.format)
	}
	render := func(w io.Writer) error {
		return rf.Render(w, doc, report.Options{ToolVersion: version(), Color: e.useColor(f.color, w), Width: f.width,
			Sections: f.sections, HideFindings: f.hideFindings, Dir: dir})
	}
	if f.output == "" {
		return render(cmd.OutOrStdout())
	}
	if err := atomicfile.Write(f.output, 0o644, render); err != nil {
		return fmt.Errorf("-o %s: %w", f.output, err)
	}
	e.sayf("%s written to %s\n", f.format, f.output)
	return nil
}

// failOn returns the exit error --fail-on asks for, if a finding is severe
// enough.
func (e *env) failOn(d *diagnose.Diagnosis, f *reportFlags) error {
	if f.failOn == "" {
		return nil
	}
	limit, _ := diagnose.ParseSeverity(f.failOn)
	if ids := d.AtLeast(limit); len(ids) > 0 {
		return &exitError{code: ExitFailOn, err: fmt.Errorf("findings at or above %s: %s", limit, strings.Join(ids, ", "))}
	}
	return nil
}
