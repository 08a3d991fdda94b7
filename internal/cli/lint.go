package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/internal/plural"
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
		Use:   "lint [PATTERNS]",
		Short: "Find code that makes garbage: the GC anti-patterns, with fixes",
		Long: `Checks Go packages (default ./...) for code patterns that make the garbage
collector work: time.After in select loops, append and map growth in loops
of known length, string += in loops, large buffers per request, io.Copy's
hidden buffer, unbounded goroutines per item, sync.Pool.Put of non-pointers,
runtime.GC on hot paths, values too large for the stack, fmt for simple
conversions, and regexps compiled per call. Advice follows each file's Go
version. --fix applies the fixes that are mechanical, to the files of the
main module only.

Like go vet and staticcheck, lint exits with status 1 when it reports a
finding (with --fix, a finding it did not fix). With --fail-on SEVERITY only
findings at least that severe fail the run, with status 3.

Flags take one dash or two: -json is --json.

The same checks run under go vet: go vet -vettool=$(command -v gcdoctor-vet).`,
		Example: `  gcdoctor lint ./...
  gcdoctor lint --fix ./internal/...
  gcdoctor lint --format sarif -o gcdoctor.sarif ./...`,
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
	if f.rf.output != "" && f.rf.output == f.sarifAlias {
		return &usageError{fmt.Errorf("-o and --sarif name the same file, %s", f.rf.output)}
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
		sarif := reportFlags{format: "sarif", output: f.sarifAlias, color: "never", width: 80}
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

// lintExit returns the exit error of a lint run. Failing to write a fix
// comes first, then the --fail-on threshold (3), then packages that do
// not compile (1), then findings left (1): lint fails on findings as go
// vet and staticcheck do, unless --fail-on says how severe they must be.
func lintExit(res *lint.Result, fixErr error, failOn string) error {
	if fixErr != nil {
		return fixErr
	}
	var left []lint.Diagnostic
	for _, d := range res.Diagnostics {
		if !d.Fixed {
			left = append(left, d)
		}
	}
	if failOn != "" {
		limit, _ := diagnose.ParseSeverity(failOn) // checked by validate
		var over []string
		for _, d := range left {
			sev, err := diagnose.ParseSeverity(d.Severity)
			if err != nil {
				sev = diagnose.Warning
			}
			if sev >= limit {
				over = append(over, d.Rule)
			}
		}
		if len(over) > 0 {
			return &exitError{code: ExitFailOn, err: fmt.Errorf("%s at or above %s", plural.Count(len(over), "finding", "findings"), limit)}
		}
	}
	if len(res.Broken) > 0 {
		return &exitError{code: ExitError, err: fmt.Errorf("%d packages do not compile (checked as far as possible)", len(res.Broken))}
	}
	if failOn == "" && len(left) > 0 {
		return &exitError{code: ExitError, err: errors.New(plural.Count(len(left), "finding", "findings"))}
	}
	return nil
}

func absDir(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}
