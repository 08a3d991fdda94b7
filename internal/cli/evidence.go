package cli

import (
	"errors"
	"slices"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
	"github.com/gcdoctor/gcdoctor/internal/demo/tour"
	"github.com/gcdoctor/gcdoctor/report"
)

// diagFlags describe the examined program when the evidence does not.
type diagFlags struct {
	goVersion string
	gogc      string
}

func (f *diagFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.goVersion, "go-version", "", "Go version of the examined program, e.g. go1.21.5 (default: inferred from the log format)")
	cmd.Flags().StringVar(&f.gogc, "gogc", "", "GOGC the program ran with (default: 100)")
}

// validate checks and normalises the flags (see
// evidence.Options.CheckProgram).
func (f *diagFlags) validate() error {
	o := evidence.Options{GoVersion: f.goVersion, GOGC: f.gogc}
	if err := o.CheckProgram(); err != nil {
		return &usageError{err}
	}
	f.goVersion = o.GoVersion
	return nil
}

// evidenceOptions are the evidence options every diagnosing command
// starts from: the program's description from the flags, standard input,
// and progress and messages on standard error.
func (e *env) evidenceOptions(want evidence.Kind, df *diagFlags) evidence.Options {
	return evidence.Options{
		Want: want, GoVersion: df.goVersion, GOGC: df.gogc,
		Stdin:    e.stdin,
		Progress: e.progress,
		Say:      func(msg string) { e.sayf("%s\n", msg) },
	}
}

// progress shows how far reading a large input has come.
func (e *env) progress(name string, size int64) (func(int64), func()) {
	p := e.status(name, size)
	return p.Read, p.Done
}

// status starts a progress line on standard error, shown on a terminal
// only.
func (e *env) status(name string, size int64) *report.Status {
	return report.NewStatus(e.stderr, name, size, isTerminal(e.stderr))
}

// diagnoseSet diagnoses what was read and reports it; inputs that failed
// beside the others are said on standard error after the report, and the
// last of them is the command's error.
func (e *env) diagnoseSet(cmd *cobra.Command, set *evidence.Set, rf *reportFlags, doctor bool) error {
	e.recheck(set.Input)
	d := set.Diagnose()
	d.FirstActions = doctor
	err := e.emit(cmd, d, rf)
	return e.failed(set, err)
}

// recheck tells the diagnosis how the commands it prints start gcdoctor,
// and how a demo server's evidence is collected again (see tour.ForBundle).
func (e *env) recheck(in *diagnose.Input) {
	in.Recheck.Tool = e.tool()
	if in.Run != nil && slices.Contains(in.Run.Command, demoServerCmd) {
		in.Recheck = tour.ForBundle(in.Recheck.Tool, in.Bundle)
	}
}

// failed prints the inputs that could not be read and returns the error
// the command ends with: err when set, else the last failure.
func (e *env) failed(set *evidence.Set, err error) error {
	if set == nil || len(set.Failed) == 0 {
		return err
	}
	last := len(set.Failed) - 1
	for _, f := range set.Failed[:last] {
		e.sayf("%v\n", f)
	}
	if err != nil {
		e.sayf("%v\n", set.Failed[last])
		return err
	}
	return &exitError{code: ExitError, err: set.Failed[last]}
}

// loadFailed returns the error of a Load that found nothing to diagnose,
// having said the other inputs that failed.
func (e *env) loadFailed(set *evidence.Set, err error) error {
	if set != nil && len(set.Failed) > 0 {
		return e.failed(&evidence.Set{Failed: set.Failed}, nil)
	}
	if errors.Is(err, evidence.ErrNoEvidence) {
		return &exitError{code: ExitError, err: err}
	}
	return err
}
