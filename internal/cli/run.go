package cli

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
)

func newRunCmd(e *env) *cobra.Command {
	var rf reportFlags
	var df diagFlags
	var out string
	var every time.Duration
	cmd := &cobra.Command{
		Use:     "run [flags] -- CMD [ARGS...]",
		Short:   "Run a program with GODEBUG=gctrace=1 and diagnose its GC when it exits",
		Long:    longHelp("run"),
		Example: examples("run"),
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if err := df.validate(); err != nil {
				return err
			}
			if cmd.ArgsLenAtDash() != 0 {
				return &usageError{errors.New("put the program after --, as in: gcdoctor run -- ./server")}
			}
			return e.runProgram(cmd, args, out, every, &rf, &df)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "keep the evidence in this bundle directory (created; must not exist or be empty)")
	cmd.Flags().DurationVar(&every, "sample-every", collect.DefaultSampleEvery, "how often to sample the program's RSS")
	rf.register(cmd)
	rf.registerCycles(cmd)
	df.register(cmd)
	return cmd
}

func (e *env) runProgram(cmd *cobra.Command, args []string, out string, every time.Duration, rf *reportFlags, df *diagFlags) error {
	var bw *bundle.Writer
	if out != "" {
		var err error
		if bw, err = bundle.Create(out); err != nil {
			return err
		}
	}
	// collect forwards the terminal's signals to the program and returns
	// when it exits, so that the diagnosis of an interrupted run is printed.
	res, err := collect.Run(context.Background(), collect.Spec{
		Path:        args[0],
		Args:        args[1:],
		Stdin:       e.stdin,
		Stdout:      cmd.OutOrStdout(),
		Stderr:      e.stderr,
		Out:         bw,
		SampleEvery: every,
		Signals:     true,
		ToolVersion: version(),
	})
	if res == nil {
		return err
	}
	defer res.Cleanup()
	if err != nil {
		e.sayf("%v\n", err)
	}
	opt := evidence.Options{GoVersion: df.goVersion, GOGC: df.gogc, KeepCycles: rf.cycles}
	set, derr := evidence.FromKeptRun(cmd.Context(), res, args, out, diagnose.Recheck{Tool: e.tool()}, opt)
	if derr != nil {
		e.sayf("%s: %v\n", strings.Join(args, " "), derr)
		code := res.ExitCode
		if code == 0 {
			code = ExitError
		}
		return &exitError{code: code}
	}
	if out != "" {
		e.sayf("evidence kept in %s\n", out)
	}
	return programExit(e, res.ExitCode, e.emit(cmd, set.Diagnose(), rf))
}

// programExit is how a command that ran a program ends: with the
// program's exit status when it failed, which takes precedence over
// --fail-on (said, then), so that a CI step running the program under
// gcdoctor fails as it would have without it.
func programExit(e *env, code int, err error) error {
	var xe *exitError
	switch {
	case code == 0:
		return err
	case err == nil:
		return &exitError{code: code}
	case errors.As(err, &xe) && xe.code == ExitFailOn:
		if xe.err != nil {
			e.sayf("%v\n", xe.err)
		}
		return &exitError{code: code}
	}
	return err
}
