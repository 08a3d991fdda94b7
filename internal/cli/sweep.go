package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/pacer"
	"github.com/gcdoctor/gcdoctor/report"
)

func newSweepCmd(e *env) *cobra.Command {
	var cf reportFlags
	var sf settingFlags
	cmd := &cobra.Command{
		Use:     "sweep --gogc A,B,... [flags] -- CMD [ARGS...]",
		Short:   "Run a program under several GOGC and GOMEMLIMIT settings and compare them",
		Long:    longHelp("sweep"),
		Example: examples("sweep"),
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.validate(); err != nil {
				return err
			}
			if cmd.ArgsLenAtDash() != 0 {
				return &usageError{errors.New("put the program after --, as in: gcdoctor sweep --gogc 50,200 -- ./prog")}
			}
			settings, exps, err := sf.parse()
			if err != nil {
				return err
			}
			return e.runSweep(cmd, args, settings, exps, sf.count, &cf)
		},
	}
	sf.register(cmd, "200", collect.DefaultSweepCount, "runs per setting", "CMD must be go run PKG or a package directory")
	cf.registerCompare(cmd)
	return cmd
}

// settingFlags are what sweep and bench run a program under: every --gogc
// with every --memlimit, once per --goexperiment build, --count times.
type settingFlags struct {
	gogcs, limits, experiments []string
	count                      int
}

func (f *settingFlags) register(cmd *cobra.Command, other string, count int, countHelp, buildHelp string) {
	cmd.Flags().StringSliceVar(&f.gogcs, "gogc", []string{"100", other}, "GOGC values to compare, the first the baseline (numbers or off)")
	cmd.Flags().StringSliceVar(&f.limits, "memlimit", nil, "GOMEMLIMIT values, each combined with every --gogc (e.g. 512MiB)")
	cmd.Flags().IntVar(&f.count, "count", count, countHelp)
	cmd.Flags().StringSliceVar(&f.experiments, "goexperiment", nil, "GOEXPERIMENT values to compare, the first the baseline, one build each: "+buildHelp+" (e.g. greenteagc,nogreenteagc; join several with +)")
}

func (f *settingFlags) parse() ([]pacer.Setting, []string, error) {
	settings, exps, err := collect.ParseSettingRuns(f.gogcs, f.limits, f.count, f.experiments)
	if err != nil {
		return nil, nil, &usageError{err}
	}
	return settings, exps, nil
}

func (e *env) runSweep(cmd *cobra.Command, args []string, settings []pacer.Setting, exps []string, count int, cf *reportFlags) error {
	// Ctrl-C cancels the context: collect stops the program and the runs.
	ctx := cmd.Context()
	pr := e.status("sweep", 0)
	runs := compare.NewSweepRuns(args, settings, exps...)
	failures, err := collect.Sweep(ctx, collect.SweepSpec{
		Path: args[0], Args: args[1:], Settings: settings, Experiments: exps, Count: count,
		Progress: pr.Run, ToolVersion: version(),
	}, func(r *collect.SettingRun) error {
		return runs.Add(runs.Column(r.Experiment, r.Setting), r.Measured())
	})
	pr.Done()
	if errors.Is(err, collect.ErrPrebuilt) {
		return &usageError{fmt.Errorf("--goexperiment: %v", err)}
	}
	if err != nil {
		return fmt.Errorf("%s: %v", strings.Join(args, " "), err)
	}
	for _, f := range failures {
		e.sayf("%s: %v (this setting was not run again)\n", strings.Join(args, " "), f)
	}
	if err := emitDoc(e, cmd, report.CompareFormats, runs.Table(), cf, ""); err != nil {
		return err
	}
	if len(failures) > 0 {
		return &exitError{code: ExitError}
	}
	return nil
}
