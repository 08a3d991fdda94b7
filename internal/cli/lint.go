package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/lint"
	"github.com/gcdoctor/gcdoctor/report"
)

func newLintCmd(e *env) *cobra.Command {
	var rf reportFlags
	var fix, tests bool
	var sarif, dir string
	var tags []string
	cmd := &cobra.Command{
		Use:   "lint [PATTERNS]",
		Short: "Find code that makes garbage: the GC anti-patterns, with fixes",
		Long: `Checks Go packages (default ./...) for code patterns that make the garbage
collector work: time.After in select loops, append and map growth in loops
of known length, string += in loops, large buffers per request, io.Copy's
hidden buffer, unbounded goroutines per item, sync.Pool.Put of non-pointers,
runtime.GC on hot paths, values too large for the stack, fmt for simple
conversions, and regexps compiled per call. Advice follows each file's Go
version. --fix applies the fixes that are mechanical.

The same checks run under go vet: go vet -vettool=$(command -v gcdoctor-vet).`,
		Example: `  gcdoctor lint ./...
  gcdoctor lint --fix ./internal/...
  gcdoctor lint --sarif gcdoctor.sarif ./...`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if len(args) == 0 {
				args = []string{"./..."}
			}
			opts := lint.Options{Fix: fix, Tests: tests}
			if len(tags) > 0 {
				opts.BuildFlags = []string{"-tags=" + joinComma(tags)}
			}
			res, err := lint.Run(dir, args, opts)
			if err != nil {
				return err
			}
			if sarif != "" {
				f, err := os.Create(sarif)
				if err != nil {
					return err
				}
				if err := lint.WriteSARIF(f, res); err != nil {
					f.Close()
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			if rf.json {
				err = report.LintJSON(out, res, version())
			} else {
				err = report.LintText(out, res, absDir(dir), report.TextOptions{Color: e.useColor(rf.color, out), Width: rf.width})
			}
			if err != nil {
				return err
			}
			for _, ae := range res.AnalysisErrors {
				fmt.Fprintf(e.stderr, "gcdoctor: %s\n", ae)
			}
			if rf.failOn != "" && len(res.Diagnostics) > 0 {
				return &exitError{code: ExitFailOn, err: fmt.Errorf("%d findings", len(res.Diagnostics))}
			}
			if len(res.Broken) > 0 {
				return &exitError{code: ExitError, err: fmt.Errorf("%d packages do not compile (checked as far as possible)", len(res.Broken))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "apply the mechanical fixes to the files")
	cmd.Flags().BoolVar(&tests, "tests", false, "also load test packages")
	cmd.Flags().StringVar(&sarif, "sarif", "", "also write SARIF 2.1.0 to this file (for GitHub code scanning)")
	cmd.Flags().StringVar(&dir, "dir", ".", "module directory to run in")
	cmd.Flags().StringSliceVar(&tags, "tags", nil, "build tags")
	rf.register(cmd)
	return cmd
}

func joinComma(s []string) string { return strings.Join(s, ",") }

func absDir(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}
