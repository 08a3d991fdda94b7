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

// reportFlags are the output flags every diagnosing command shares.
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
	// cmd is the command the flags belong to, nil for commands that
	// validate flag values without registering them (diff, demo).
	cmd *cobra.Command
}

// ownReport reports whether a command renders a document of its own rather
// than a diagnosis through emit: it can print text or JSON only, to
// standard output.
func ownReport(cmd *cobra.Command) bool {
	return cmd.Name() == "lint"
}

// formatNames lists what --format accepts for a command.
func formatNames(cmd *cobra.Command) []string {
	if cmd != nil && ownReport(cmd) {
		return []string{"text", "json"}
	}
	var names []string
	for _, f := range report.Formats() {
		names = append(names, f.Name)
	}
	return names
}

func (f *reportFlags) register(cmd *cobra.Command) {
	f.cmd = cmd
	if ownReport(cmd) {
		cmd.Flags().BoolVar(&f.json, "json", false, "print the result as JSON (schema: docs/json.md); short for --format json")
		cmd.Flags().StringVar(&f.format, "format", "text", "output format: text or json")
	} else {
		cmd.Flags().BoolVar(&f.json, "json", false, "print the diagnosis as JSON (schema: docs/json.md); short for --format json")
		cmd.Flags().StringVar(&f.format, "format", "text", "report format: text, json, markdown (for an issue), html (one offline page with charts)\nor sarif (GitHub code scanning); see docs/reports.md")
		cmd.Flags().StringVarP(&f.output, "output", "o", "", "write the report to `FILE` instead of standard output; --format html needs it\nwhen standard output is a terminal")
	}
	cmd.Flags().StringVar(&f.color, "color", "auto", "colour the text report: auto, always or never (NO_COLOR is honoured)")
	cmd.Flags().StringVar(&f.failOn, "fail-on", "", "exit with status 3 when a finding is at least this severe: info, warning or critical")
	cmd.Flags().IntVar(&f.width, "width", 80, "wrap the text report at this many columns")
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
	if f.width < 40 {
		return &usageError{fmt.Errorf("--width must be at least 40")}
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
	formats := formatNames(f.cmd)
	if !slices.Contains(formats, f.format) {
		n := len(formats)
		return &usageError{fmt.Errorf("--format must be %s or %s, not %q", strings.Join(formats[:n-1], ", "), formats[n-1], f.format)}
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
	if rf, _ := report.Lookup(f.format); rf.Page && f.output == "" && isTerminal(f.cmd.OutOrStdout()) {
		// A page of HTML on a terminal helps nobody, and writing a file
		// nobody named could overwrite one.
		return &usageError{errors.New("--format html writes a web page: give -o FILE.html, or redirect standard output")}
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
	if f.output == "" {
		if err := e.render(cmd.OutOrStdout(), d, f); err != nil {
			return err
		}
	} else if err := e.renderFile(d, f); err != nil {
		return err
	}
	return e.failOn(d, f)
}

func (e *env) render(w io.Writer, d *diagnose.Diagnosis, f *reportFlags) error {
	rf, ok := report.Lookup(f.format)
	if !ok {
		return fmt.Errorf("no report format %q", f.format)
	}
	return rf.Render(w, d, report.Options{ToolVersion: version(), Color: e.useColor(f.color, w), Width: f.width,
		Sections: f.sections, HideFindings: f.hideFindings})
}

// renderFile writes the report to -o FILE without ever leaving a
// half-written one: a regular file is replaced atomically and keeps its
// mode, a device or FIFO is written through (see atomicfile).
func (e *env) renderFile(d *diagnose.Diagnosis, f *reportFlags) error {
	err := atomicfile.Write(f.output, 0o644, func(w io.Writer) error { return e.render(w, d, f) })
	if err != nil {
		return fmt.Errorf("-o %s: %w", f.output, err)
	}
	fmt.Fprintf(e.stderr, "gcdoctor: %s report written to %s\n", f.format, f.output)
	return nil
}

// failOn returns the exit error --fail-on asks for, if a finding is severe
// enough.
func (e *env) failOn(d *diagnose.Diagnosis, f *reportFlags) error {
	if f.failOn != "" {
		limit, _ := diagnose.ParseSeverity(f.failOn)
		if sev, ok := d.MaxSeverity(); ok && sev >= limit {
			var ids []string
			for _, fd := range d.Findings {
				if fd.Severity >= limit {
					ids = append(ids, fd.ID)
				}
			}
			return &exitError{code: ExitFailOn, err: fmt.Errorf("findings at or above %s: %s", limit, strings.Join(ids, ", "))}
		}
	}
	return nil
}
