package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/pacer"
	"github.com/gcdoctor/gcdoctor/report"
)

func newBenchCmd(e *env) *cobra.Command {
	var cf reportFlags
	var sf settingFlags
	var bench, benchtime, dir string
	cmd := &cobra.Command{
		Use:     "bench --gogc A,B,... [flags] PKG|TESTBINARY [-- TEST FLAGS...]",
		Short:   "Run a package's benchmarks under several GOGC and GOMEMLIMIT settings and compare them",
		Long:    longHelp("bench"),
		Example: examples("bench"),
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.validate(); err != nil {
				return err
			}
			if dash := cmd.ArgsLenAtDash(); dash > 1 || (dash < 0 && len(args) != 1) || dash == 0 {
				return &usageError{errors.New("give one package (or test binary), then test binary flags after --")}
			}
			settings, exps, err := sf.parse()
			if err != nil {
				return err
			}
			spec := collect.BenchSpec{Bench: bench, Benchtime: benchtime, TestArgs: args[1:],
				Settings: settings, Experiments: exps, Count: sf.count, ToolVersion: version()}
			if err := spec.SetTarget(args[0], dir); err != nil {
				return &usageError{err}
			}
			return e.runBench(cmd, spec, &cf)
		},
	}
	sf.register(cmd, "400", collect.DefaultBenchCount, "runs of the benchmarks per setting", "bench builds PKG once per value")
	cmd.Flags().StringVar(&bench, "bench", ".", "run only the benchmarks matching this regular expression (go test -bench)")
	cmd.Flags().StringVar(&benchtime, "benchtime", "", "go test -benchtime: a duration, or Nx for a fixed iteration count")
	cmd.Flags().StringVar(&dir, "dir", "", "working directory of a prebuilt test binary")
	cf.registerCompare(cmd)
	return cmd
}

func (e *env) runBench(cmd *cobra.Command, spec collect.BenchSpec, cf *reportFlags) error {
	// Ctrl-C cancels the context: collect stops the program and the runs.
	ctx := cmd.Context()
	pr := e.status("bench", 0)
	spec.Progress = func(done, total int, s pacer.Setting) { pr.Run(done, total, s) }
	runs := compare.NewBenchRuns(spec.Target(), spec.Pattern(), spec.Settings, spec.Runs(), spec.FixedWork(), spec.Experiments...)
	command, err := collect.Bench(ctx, spec, func(r *collect.SettingRun) error {
		return runs.Add(runs.Column(r.Experiment, r.Setting), r.Measured())
	})
	pr.Done()
	if err != nil {
		return fmt.Errorf("%s: %v", spec.Target(), err)
	}
	runs.Command = command
	return emitDoc(e, cmd, report.CompareFormats, runs.Table(), cf, "")
}
