package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/report"
)

// reportFlags are the output flags every diagnosing command shares.
type reportFlags struct {
	json   bool
	color  string
	failOn string
	width  int
}

func (f *reportFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.json, "json", false, "print the diagnosis as JSON (schema: docs/json.md)")
	cmd.Flags().StringVar(&f.color, "color", "auto", "colour the text report: auto, always or never (NO_COLOR is honoured)")
	cmd.Flags().StringVar(&f.failOn, "fail-on", "", "exit with status 3 when a finding is at least this severe: info, warning or critical")
	cmd.Flags().IntVar(&f.width, "width", 80, "wrap the text report at this many columns")
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

// emit renders the diagnosis and applies --fail-on.
func (e *env) emit(cmd *cobra.Command, d *diagnose.Diagnosis, f *reportFlags) error {
	out := cmd.OutOrStdout()
	var err error
	if f.json {
		err = report.JSON(out, d, version())
	} else {
		err = report.Text(out, d, report.TextOptions{Color: e.useColor(f.color, out), Width: f.width})
	}
	if err != nil {
		return err
	}
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
