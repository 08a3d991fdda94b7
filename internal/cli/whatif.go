package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
)

// whatifFlags are whatif's flags. The settings to predict are
// --predict-gogc and --predict-memlimit; --gogc and --memlimit, their
// first spellings, still work but are hidden: everywhere else --gogc is
// the GOGC the program ran with, which whatif calls --current-gogc.
type whatifFlags struct {
	gogcs, limits           []string // settings to predict
	oldGOGCs, oldLimits     []string // the deprecated spellings of the two above
	current, currentLimit   string   // the setting the log was recorded with
	budget, goal, goVersion string
	segment                 int
}

// deprecatedAliases moves the values of the deprecated --gogc and
// --memlimit to the flags that replaced them, with a one-line note on w
// for each; giving both spellings of one flag is a usage error.
func (f *whatifFlags) deprecatedAliases(cmd *cobra.Command, w io.Writer) error {
	for _, a := range []struct {
		old, now string
		from     []string
		to       *[]string
	}{{"gogc", "predict-gogc", f.oldGOGCs, &f.gogcs}, {"memlimit", "predict-memlimit", f.oldLimits, &f.limits}} {
		if !cmd.Flags().Changed(a.old) {
			continue
		}
		if cmd.Flags().Changed(a.now) {
			return &usageError{fmt.Errorf("--%s and --%s are the same flag: give --%s only", a.old, a.now, a.now)}
		}
		*a.to = a.from
		fmt.Fprintf(w, "gcdoctor: whatif --%s is deprecated: use --%s (elsewhere --%s is the setting the program ran with, --current-%s here)\n", a.old, a.now, a.old, a.old)
	}
	return nil
}

func newWhatIfCmd(e *env) *cobra.Command {
	var rf reportFlags
	var f whatifFlags
	cmd := &cobra.Command{
		Use:     "whatif LOG|BUNDLE",
		Short:   "Predict what other GOGC and GOMEMLIMIT settings would do, from one gctrace log",
		Long:    longHelp("whatif"),
		Example: examples("whatif"),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if err := f.deprecatedAliases(cmd, e.stderr); err != nil {
				return err
			}
			return e.runWhatIf(cmd, args[0], &f, &rf)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.gogcs, "predict-gogc", []string{"50", "100", "200", "400", "800"}, "GOGC values to predict (numbers or off)")
	fl.StringSliceVar(&f.limits, "predict-memlimit", nil, "GOMEMLIMIT values to predict, each combined with every --predict-gogc (e.g. 512MiB)")
	fl.StringSliceVar(&f.oldGOGCs, "gogc", nil, "deprecated: --predict-gogc")
	fl.StringSliceVar(&f.oldLimits, "memlimit", nil, "deprecated: --predict-memlimit")
	for _, name := range []string{"gogc", "memlimit"} {
		if err := fl.MarkHidden(name); err != nil {
			panic(err) // the flags are registered just above
		}
	}
	fl.StringVar(&f.current, "current-gogc", "", "GOGC the program ran with when the log was recorded, as --gogc in gctrace and doctor\n(default: from a bundle, else 100)")
	fl.StringVar(&f.currentLimit, "current-memlimit", "", "GOMEMLIMIT the program ran with when the log was recorded (default: from a bundle,\nelse none)")
	fl.StringVar(&f.budget, "budget", "", "memory budget to recommend a setting for (default: a bundle's cgroup limit)")
	fl.StringVar(&f.goal, "goal", "cpu", "what the recommendation optimises: cpu or latency")
	fl.StringVar(&f.goVersion, "go-version", "", "Go version of the program (default: from a bundle, else the log format)")
	fl.IntVar(&f.segment, "segment", -1, "which process of the log to model, by its # in the report (default: the one with\nthe most GC CPU time)")
	rf.register(cmd)
	return cmd
}

func (e *env) runWhatIf(cmd *cobra.Command, path string, f *whatifFlags, rf *reportFlags) error {
	tr, err := diagnose.NewWhatIfRequest(f.gogcs, f.limits, f.goal, f.budget, f.current, f.currentLimit)
	if err != nil {
		return &usageError{err}
	}
	df := &diagFlags{goVersion: f.goVersion, gogc: f.current}
	if f.goVersion != "" {
		if err := df.validate(); err != nil {
			return err
		}
	}
	opt := e.evidenceOptions(evidence.GCTrace, df)
	opt.KeepCycles = true
	set, err := evidence.Load(cmd.Context(), []string{path}, opt)
	if err != nil {
		return e.loadFailed(set, err)
	}
	in := set.Input
	if f.currentLimit != "" {
		in.GOMEMLIMIT = f.currentLimit
	}
	if err := tr.ChooseSegment(f.segment, in.Log); err != nil {
		return &usageError{err}
	}
	in.Tune = tr
	e.recheck(in)
	d := set.Diagnose()
	tu := d.Tuning
	if tu == nil {
		return fmt.Errorf("%s: no process with GC cycles", path)
	}
	if tu.Model == nil {
		return fmt.Errorf("%s: %s", tu.Segment.Input, tu.Err)
	}
	rf.sections, rf.hideFindings = []string{"tuning"}, true
	return e.failed(set, e.emit(cmd, d, rf))
}
