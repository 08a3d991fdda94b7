// Package cli implements the gcdoctor command line. Each subcommand lives in
// its own file and only turns flags into library calls and a report; the
// analysis itself lives in the public packages.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/internal/flagargs"
	"github.com/gcdoctor/gcdoctor/internal/release"
	"github.com/gcdoctor/gcdoctor/internal/terminal"
)

// Exit codes of the gcdoctor command.
const (
	ExitOK     = 0 // success, no threshold crossed
	ExitError  = 1 // bad input, I/O failure or a failed collection
	ExitUsage  = 2 // bad flags or arguments
	ExitFailOn = 3 // a finding at or above the --fail-on severity
)

// exitError carries a specific exit code through cobra's error path.
type exitError struct {
	code int
	err  error // nil when the message was already printed
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError marks an error caused by how the command was invoked.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }

// env is what a command needs from the process it runs in. Tests replace it.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// ctx is cancelled on Ctrl-C; nil in tests.
	ctx context.Context
	// self returns how a shell starts this gcdoctor, for the commands it
	// prints (see release.Command); nil means "gcdoctor".
	self func() string
}

// Main runs gcdoctor with args (without the program name) and returns the
// process exit code. It never calls os.Exit, so tests can drive it.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := interrupts()
	defer stop()
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, ctx: ctx,
		self: sync.OnceValue(func() string { return release.Command(release.Current()) })}
	return e.run(args)
}

// interrupts returns a context that the first SIGINT or SIGTERM cancels,
// so that reading and unpacking stop and clean up after themselves; a
// second one then ends gcdoctor at once, as it would have without it.
// Commands that run a program pass the signals on to it instead (see
// collect.Spec.Signals).
func interrupts() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

func (e *env) run(args []string) int {
	root := newRootCmd(e)
	root.SetArgs(dashArgs(root, args))
	if e.ctx != nil {
		root.SetContext(e.ctx)
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.err != nil {
			e.sayf("%v\n", xe.err)
		}
		return xe.code
	}
	e.sayf("%v\n", err)
	var ue *usageError
	if errors.As(err, &ue) || flagargs.IsUsageError(err) {
		fmt.Fprintf(e.stderr, "Run 'gcdoctor %s --help' for usage.\n", commandPathFor(root, args))
		return ExitUsage
	}
	return ExitError
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "gcdoctor",
		Short:         "Diagnose Go programs whose garbage collector costs too much",
		Long:          longHelp("gcdoctor"),
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("gcdoctor {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{err}
	})
	root.AddCommand(
		newVersionCmd(),
		newGctraceCmd(e),
		newRunCmd(e),
		newHeapCmd(e),
		newAttachCmd(e),
		newWhatIfCmd(e),
		newLintCmd(e),
		newTraceCmd(e),
		newWorkersCmd(e),
		newSweepCmd(e),
		newBenchCmd(e),
		newDiffCmd(e),
		newDoctorCmd(e),
		newFleetCmd(e),
		newWatchCmd(e),
		newDemoCmd(e),
		newDemoServerCmd(e),
		newExplainCmd(e),
	)
	return root
}

// version is gcdoctor's version (see internal/release).
func version() string { return release.Version() }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the gcdoctor version and the Go version it was built with",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "gcdoctor %s\n", version())
			return nil
		},
	}
}

func commandPathFor(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil || c == nil || c == root {
		return ""
	}
	return c.Name()
}

// dashArgs lets every command take its long flags with one dash, as Go's
// own tools do (see flagargs): the arguments after the command's
// name are rewritten before cobra parses them.
func dashArgs(root *cobra.Command, args []string) []string {
	c, _, err := root.Find(args)
	if err != nil || c == root || len(args) == 0 || args[0] != c.Name() {
		return args
	}
	return append([]string{args[0]}, flagargs.SingleDash(c.Flags(), args[1:])...)
}

// sayf prints a one-line message on standard error, prefixed with
// gcdoctor's name. What the message quotes from the evidence (file names,
// what a server answered) is escaped so that it cannot act on the
// terminal (see internal/terminal).
func (e *env) sayf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "gcdoctor: %s", terminal.Escape(strings.TrimSuffix(fmt.Sprintf(format, args...), "\n"))+"\n")
}

// tool returns how the commands gcdoctor prints start gcdoctor.
func (e *env) tool() string {
	if e.self == nil {
		return "gcdoctor"
	}
	return e.self()
}
