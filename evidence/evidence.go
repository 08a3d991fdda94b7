// Package evidence is the one way into a diagnosis. It turns a source — a
// file of any kind gcdoctor reads, an evidence bundle (a directory or a
// .tar.gz), a running program's /debug/pprof URL, or a finished run — into a
// diagnose.Input, with notes on what was missing, partial or unreadable.
//
// Every command goes the same way: flags → evidence → diagnose → report.
// A command says which kinds of evidence it wants (Options.Want); Load reads
// those the source has and says, in Set.Notes, which it lacks and how to
// collect them, so that every command reports all the evidence it has, the
// same way.
//
// Adding a kind of evidence means adding a reader here (see reader.go and
// the registration in readers), a field to diagnose.Input, and a section in
// report; docs/architecture.md walks through it.
package evidence

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/internal/goversion"
)

// Kind is a set of kinds of evidence.
type Kind uint32

// The kinds of evidence gcdoctor reads itself; Register adds more.
const (
	// GCTrace is GODEBUG=gctrace=1 output: a log of GC cycles.
	GCTrace Kind = 1 << iota
	// Heap is a heap or allocs profile (pprof).
	Heap
	// Trace is a runtime execution trace.
	Trace
	// All is every kind, registered ones included.
	All = ^Kind(0)
)

// String names the kinds in k, e.g. "gctrace log" or "heap profile or
// execution trace".
func (k Kind) String() string {
	var names []string
	for _, r := range readers {
		if k&r.kind != 0 {
			names = append(names, r.name)
		}
	}
	if len(names) == 0 {
		return "no evidence"
	}
	return strings.Join(names, " or ")
}

// Options say which evidence to read and how to read it. The zero value
// reads every kind with the defaults.
type Options struct {
	// Want is the kinds of evidence the command uses; zero means All. A
	// bundle's other files are left alone, and a file of another kind is
	// an error that names the command that reads it.
	Want Kind
	// GoVersion and GOGC describe the examined program when given on the
	// command line; they override what a bundle recorded. "" keeps it.
	GoVersion, GOGC string
	// KeepCycles keeps every gctrace cycle (for charts, the pacer model and
	// --cycles); otherwise only the summaries are kept.
	KeepCycles bool
	// Source is the package patterns to run the source checks and the
	// escape analysis on (--source); Dir is the module directory they are
	// relative to. Empty Source skips both.
	Source []string
	Dir    string
	// Lint runs the source checks on Source too, to be weighed by the
	// allocation profile (doctor --source).
	Lint bool
	// Top is how many allocation sites to rank (default 10); Ops the
	// operations a profile covers, for bytes per operation (0 unknown);
	// User the module or package paths that are the user's own code
	// (default: everything outside the standard library and golang.org/x).
	Top  int
	Ops  int64
	User []string
	// Stdin is read for the source "-".
	Stdin io.Reader
	// Progress, when set, shows how far reading a large input has come.
	Progress Progress
	// Say, when set, receives one-line messages about what is being done
	// ("fetching the allocs profile"), for a person watching.
	Say func(msg string)
}

// Progress starts a progress display for reading the named input of size
// bytes (0 when unknown). It returns the function to call with the bytes
// read so far, and the one that ends the display.
type Progress func(name string, size int64) (update func(bytesRead int64), done func())

// Set is the evidence read from one source.
type Set struct {
	// Input is what the diagnosis is made from.
	Input *diagnose.Input
	// Notes say, one sentence each, what evidence is missing, partial or
	// unreadable, and how to collect what is missing. They belong in the
	// report beside the diagnosis.
	Notes []string
	// Failed are the inputs named by the user that could not be read in
	// full: the diagnosis covers the rest, and the command should end with
	// a non-zero exit status after reporting. Each error names its input.
	Failed []error
	// Bundle is the bundle the evidence was read from, "" when none.
	Bundle string
}

// note adds a note.
func (s *Set) note(format string, args ...any) {
	s.Notes = append(s.Notes, fmt.Sprintf(format, args...))
}

// Err returns the error a command should end with: the last of Failed, or
// nil.
func (s *Set) Err() error {
	if len(s.Failed) == 0 {
		return nil
	}
	return s.Failed[len(s.Failed)-1]
}

// CheckProgram checks and normalises what the user says of the examined
// program, GoVersion (go1.21.5, 1.21) and GOGC (a number or off), with
// errors that name their flags, --go-version and --gogc.
func (o *Options) CheckProgram() error {
	if v := o.GoVersion; v != "" {
		var ok bool
		if o.GoVersion, ok = goversion.Normalize(v); !ok {
			return fmt.Errorf("--go-version %q is not a Go version such as go1.21.5", v)
		}
	}
	if g := o.GOGC; g != "" && !strings.EqualFold(g, "off") {
		if _, err := strconv.Atoi(g); err != nil {
			return fmt.Errorf("--gogc %q: want a number or off", g)
		}
	}
	return nil
}

// Diagnose diagnoses the evidence, with the notes on what was missing,
// partial or unreadable among the report's caveats.
func (s *Set) Diagnose() *diagnose.Diagnosis {
	d := diagnose.Diagnose(s.Input)
	d.Caveats = append(d.Caveats, s.Notes...)
	return d
}

// ErrNoEvidence is wrapped by the error Load returns when a source holds
// nothing gcdoctor can read.
var ErrNoEvidence = errors.New("no evidence gcdoctor can read")

func (o *Options) want() Kind {
	if o.Want == 0 {
		return All
	}
	return o.Want
}

func (o *Options) say(format string, args ...any) {
	if o.Say != nil {
		o.Say(fmt.Sprintf(format, args...))
	}
}

func (o *Options) progress(name string, size int64) (func(int64), func()) {
	if o.Progress == nil {
		return nil, func() {}
	}
	return o.Progress(name, size)
}
