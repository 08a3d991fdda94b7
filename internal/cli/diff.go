package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/report"
)

// registerCompare adds the output flags of a comparison (diff, sweep,
// bench): no --fail-on, since a comparison has no findings.
func (f *reportFlags) registerCompare(cmd *cobra.Command) {
	registerFormats(f, cmd, report.CompareFormats, false)
}

func newDiffCmd(e *env) *cobra.Command {
	var cf reportFlags
	cmd := &cobra.Command{
		Use:   "diff BEFORE AFTER",
		Short: "Compare benchmark results or GC figures before and after a change",
		Long: `Compares two sets of evidence with the statistics benchstat uses: the median
of each sample with its 95% confidence interval, and the change from BEFORE
to AFTER with the p-value of a Mann-Whitney U test, shown as "~" when the
difference cannot be told from noise (p >= 0.05, or too few samples).

BEFORE and AFTER are each a file of benchmark results (go test -bench
output, -count=6 or more for useful statistics), a gctrace log, an evidence
bundle written by 'gcdoctor run --out', a comma-separated list of such
files, or a directory holding several. Each gctrace log or bundle is one
run of the program: its GC count, GC CPU, p99 pause and peak heap (and the
wall time and peak RSS a bundle records) make one value of a sample, so
compare several runs per side to learn whether a change is real.`,
		Example: `  go test -run '^$' -bench . -count 6 > old.txt   # then change the code
  go test -run '^$' -bench . -count 6 > new.txt
  gcdoctor diff old.txt new.txt
  gcdoctor diff before/ after/                  # directories of bundles
  gcdoctor diff a1.log,a2.log,a3.log,a4.log b1.log,b2.log,b3.log,b4.log`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.validate(); err != nil {
				return err
			}
			return e.runDiff(cmd, args[0], args[1], &cf)
		},
	}
	cf.registerCompare(cmd)
	return cmd
}

func (e *env) runDiff(cmd *cobra.Command, beforeSpec, afterSpec string, cf *reportFlags) error {
	before, err := compare.Load(beforeSpec)
	if err != nil {
		return err
	}
	after, err := compare.Load(afterSpec)
	if err != nil {
		return err
	}
	t, err := compare.Diff(before, after, [2]string{"before", "after"})
	if err != nil {
		return err
	}
	t.Title = fmt.Sprintf("%s vs %s", describeInputs(beforeSpec, before), describeInputs(afterSpec, after))
	return emitDoc(e, cmd, report.CompareFormats, t, cf, "")
}

// describeInputs names one side of a diff briefly: the argument itself, or
// its first file and how many there are when it is a list.
func describeInputs(spec string, s *compare.Side) string {
	if !strings.Contains(spec, ",") {
		if len(s.Inputs) > 1 {
			return fmt.Sprintf("%s (%d inputs)", spec, len(s.Inputs))
		}
		return spec
	}
	return fmt.Sprintf("%s,… (%d inputs)", s.Inputs[0], len(s.Inputs))
}
