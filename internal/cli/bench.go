package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/pacer"
	"github.com/gcdoctor/gcdoctor/report"
)

func newBenchCmd(e *env) *cobra.Command {
	var cf reportFlags
	var gogcs, limits []string
	var count int
	var bench, benchtime, dir string
	cmd := &cobra.Command{
		Use:   "bench --gogc A,B,... [flags] PKG|TESTBINARY [-- TEST FLAGS...]",
		Short: "Run a package's benchmarks under several GOGC and GOMEMLIMIT settings and compare them",
		Long: `Builds the test binary of one package (go test -c) and runs its benchmarks
--count times under each setting, the settings interleaved so that a drift
of the machine affects them alike. For each benchmark it compares sec/op,
B/op, allocs/op and any custom unit across the settings with the statistics
benchstat uses (the change from the first setting with its p-value, "~"
when it cannot be told from noise), then the wall time, peak RSS and GC
figures of the test binary's runs. With a fixed iteration count
(--benchtime 500x), every run does the same work, and beside the GC
figures are the predictions of the pacer model (as in whatif) fitted from
the first run of the first setting.

The binary runs in the package's directory, as go test runs it. A prebuilt
test binary (a file ending in .test) is run in --dir instead. Flags after
-- go to the test binary, such as -test.cpu=1.`,
		Example: `  gcdoctor bench --gogc 100,400 --bench 'Encode' ./codec
  gcdoctor bench --gogc 100,off --memlimit 256MiB --benchtime 500x ./parser
  gcdoctor bench --gogc 50,100,200 ./json.test -- -test.cpu=1`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.validate(); err != nil {
				return err
			}
			if dash := cmd.ArgsLenAtDash(); dash > 1 || (dash < 0 && len(args) != 1) || dash == 0 {
				return &usageError{errors.New("give one package (or test binary), then test binary flags after --")}
			}
			if count < 1 || count > maxCount {
				return &usageError{fmt.Errorf("--count must be between 1 and %d", maxCount)}
			}
			settings, err := parseSettings(gogcs, limits)
			if err != nil {
				return err
			}
			spec := collect.BenchSpec{Bench: bench, Benchtime: benchtime, TestArgs: args[1:],
				Settings: settings, Count: count, ToolVersion: version()}
			if st, err := os.Stat(args[0]); err == nil && st.Mode().IsRegular() {
				spec.Binary, spec.Dir = args[0], dir
			} else {
				spec.Pkg = args[0]
			}
			return e.runBench(cmd, spec, &cf)
		},
	}
	cmd.Flags().StringSliceVar(&gogcs, "gogc", []string{"100", "400"}, "GOGC values to compare, the first the baseline (numbers or off)")
	cmd.Flags().StringSliceVar(&limits, "memlimit", nil, "GOMEMLIMIT values, each combined with every --gogc (e.g. 512MiB)")
	cmd.Flags().IntVar(&count, "count", collect.DefaultBenchCount, "runs of the benchmarks per setting")
	cmd.Flags().StringVar(&bench, "bench", ".", "run only the benchmarks matching this regular expression (go test -bench)")
	cmd.Flags().StringVar(&benchtime, "benchtime", "", "go test -benchtime: a duration, or Nx for a fixed iteration count")
	cmd.Flags().StringVar(&dir, "dir", "", "working directory of a prebuilt test binary")
	cf.registerCompare(cmd)
	return cmd
}

func (e *env) runBench(cmd *cobra.Command, spec collect.BenchSpec, cf *reportFlags) error {
	ctx, stop := interruptible()
	defer stop()
	pr := e.status("bench", 0)
	spec.Progress = func(done, total int, s pacer.Setting) { pr.Run(done, total, s) }
	runs := compare.NewBenchRuns(spec.Target(), spec.Pattern(), spec.Settings, spec.Runs(), spec.FixedWork())
	command, err := collect.Bench(ctx, spec, func(r *collect.SettingRun) error {
		return runs.Add(r.Setting, measured(r))
	})
	pr.Done()
	if err != nil {
		return fmt.Errorf("%s: %v", spec.Target(), err)
	}
	runs.Command = command
	return emitDoc(e, cmd, report.CompareFormats, runs.Table(), cf, "")
}
