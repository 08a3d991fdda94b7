package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/lint"
	"github.com/gcdoctor/gcdoctor/report"
)

// lintFlags are lint's flags.
type lintFlags struct {
	rf         reportFlags
	sarifAlias string // --sarif FILE, the older spelling of --format sarif -o FILE
	fix, tests bool
	dir        string
	tags       []string
}

func newLintCmd(e *env) *cobra.Command {
	var f lintFlags
	cmd := &cobra.Command{
		Use:     "lint [PATTERNS]",
		Short:   "Find code that makes garbage: the GC anti-patterns, with fixes",
		Long:    longHelp("lint"),
		Example: examples("lint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.runLint(cmd, args, &f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.fix, "fix", false, "apply the mechanical fixes to the files of the main module")
	fl.BoolVar(&f.tests, "tests", false, "also load test packages")
	fl.StringVar(&f.dir, "dir", ".", "module directory to run in")
	fl.StringSliceVar(&f.tags, "tags", nil, "build tags")
	registerFormats(&f.rf, cmd, report.LintFormats, false)
	fl.StringVar(&f.rf.failOn, "fail-on", "", "exit with status 3 when a finding is at least this severe (info or warning), and\nwith 0 when findings are all below it")
	fl.StringVar(&f.sarifAlias, "sarif", "", "also write SARIF 2.1.0 to `FILE` (deprecated: use --format sarif -o FILE)")
	if err := fl.MarkHidden("sarif"); err != nil {
		panic(err) // the flag is registered just above
	}
	return cmd
}

// validate checks lint's flags.
func (f *lintFlags) validate() error {
	if err := f.rf.validate(); err != nil {
		return err
	}
	if f.rf.File != "" && f.rf.File == f.sarifAlias {
		return &usageError{fmt.Errorf("-o and --sarif name the same file, %s", f.rf.File)}
	}
	return nil
}

func (e *env) runLint(cmd *cobra.Command, args []string, f *lintFlags) error {
	if err := f.validate(); err != nil {
		return err
	}
	if f.sarifAlias != "" {
		e.sayf("--sarif FILE is deprecated; use --format sarif -o FILE\n")
	}
	if len(args) == 0 {
		args = []string{"./..."}
	}
	opts := lint.Options{Fix: f.fix, Tests: f.tests}
	if len(f.tags) > 0 {
		opts.BuildFlags = []string{"-tags=" + strings.Join(f.tags, ",")}
	}
	res, fixErr := lint.Run(f.dir, args, opts)
	if res == nil {
		return fixErr
	}
	// A failed fix leaves its file unchanged; the findings are still
	// worth printing before the error.
	dir := absDir(f.dir)
	if err := emitDoc(e, cmd, report.LintFormats, res, &f.rf, dir); err != nil {
		return err
	}
	if f.sarifAlias != "" {
		sarif := reportFlags{Output: report.Output{Format: "sarif", File: f.sarifAlias, Color: "never", Width: 80}}
		if err := emitDoc(e, cmd, report.LintFormats, res, &sarif, dir); err != nil {
			return err
		}
	}
	for _, ae := range res.AnalysisErrors {
		e.sayf("%s\n", ae)
	}
	for _, line := range report.LintSkipped(res.Skipped, dir) {
		e.sayf("%s\n", line)
	}
	return lintExit(res, fixErr, f.rf.failOn)
}

// lintExit returns the exit error of a lint run: failing to write a fix
// comes first, then what lint.Result.Failure says, with status 3 for the
// --fail-on threshold and 1 otherwise.
func lintExit(res *lint.Result, fixErr error, failOn string) error {
	if fixErr != nil {
		return fixErr
	}
	threshold, err := res.Failure(failOn)
	switch {
	case threshold:
		return &exitError{code: ExitFailOn, err: err}
	case err != nil:
		return &exitError{code: ExitError, err: err}
	}
	return nil
}

func absDir(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}
