package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/internal/terminal"
	"github.com/gcdoctor/gcdoctor/report"
)

// reportFlags are the output flags every command that prints a document
// shares: which format, where to, colour and width (report.Output) and,
// for the diagnosing commands, --fail-on.
type reportFlags struct {
	report.Output
	failOn string
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
	f.cmd, f.formats, f.pages = cmd, report.Names(formats), report.Pages(formats)
	cmd.Flags().BoolVar(&f.JSON, "json", false, "print JSON (schema: "+report.DocsURL+"json.md); short for --format json")
	cmd.Flags().StringVar(&f.Format, "format", "text", "output format: "+report.FormatsHelp(formats))
	cmd.Flags().StringVarP(&f.File, "output", "o", "", "write to `FILE` instead of standard output (atomically, keeping its mode)")
	cmd.Flags().StringVar(&f.Color, "color", "auto", "colour the text report: auto, always or never (NO_COLOR is honoured)")
	cmd.Flags().IntVar(&f.Width, "width", 80, "wrap the text report at this many columns")
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

// validate checks the output flags (see report.Output.Check) before any
// work is done.
func (f *reportFlags) validate() error {
	if err := report.CheckColor(f.Color); err != nil {
		return &usageError{err}
	}
	if f.failOn != "" {
		if _, err := diagnose.ParseSeverity(f.failOn); err != nil {
			return &usageError{fmt.Errorf("--fail-on: %v", err)}
		}
	}
	given, toTerminal := false, false
	if f.cmd != nil {
		given, toTerminal = f.cmd.Flags().Changed("format"), isTerminal(f.cmd.OutOrStdout())
	}
	if err := f.Check(f.formats, f.pages, given, toTerminal); err != nil {
		return &usageError{err}
	}
	if f.cmd != nil && f.Format == "html" {
		// The charts are drawn from every cycle, which gctrace keeps only
		// when asked.
		f.cycles = true
	}
	return nil
}

// useColor decides on ANSI colours for w (see terminal.Color).
func (e *env) useColor(mode string, w io.Writer) bool {
	return terminal.Color(mode, e.getenv("NO_COLOR") != "", w)
}

func isTerminal(w any) bool { return terminal.Is(w) }

// emit renders the diagnosis, to -o FILE when given, and applies
// --fail-on.
func (e *env) emit(cmd *cobra.Command, d *diagnose.Diagnosis, f *reportFlags) error {
	if f.Format == "json" && !f.cycles && d.Log != nil {
		// Kept for the model and the charts; in JSON only when asked.
		d.Log.ForgetCycles()
	}
	if err := emitDoc(e, cmd, report.DiagnosisFormats, d, f, ""); err != nil {
		return err
	}
	return f.failOnExit(d.FailOn)
}

// emitDoc writes doc in the format the flags chose, to standard output or
// to -o FILE (see report.Emit), and says where a file went.
func emitDoc[T any](e *env, cmd *cobra.Command, formats []report.Format[T], doc T, f *reportFlags, dir string) error {
	opts := report.Options{ToolVersion: version(), Sections: f.sections, HideFindings: f.hideFindings, Dir: dir}
	color := func(w io.Writer) bool { return e.useColor(f.Color, w) }
	if err := report.Emit(cmd.OutOrStdout(), formats, doc, &f.Output, opts, color); err != nil || f.File == "" {
		return err
	}
	e.sayf("%s written to %s\n", f.Format, f.File)
	return nil
}

// failOnExit returns the exit error --fail-on asks for, if judge finds
// something at least as severe as its limit (see diagnose.Diagnosis.FailOn
// and fleet.Report.FailOn).
func (f *reportFlags) failOnExit(judge func(diagnose.Severity) error) error {
	if f.failOn == "" {
		return nil
	}
	limit, _ := diagnose.ParseSeverity(f.failOn)
	if err := judge(limit); err != nil {
		return &exitError{code: ExitFailOn, err: err}
	}
	return nil
}
