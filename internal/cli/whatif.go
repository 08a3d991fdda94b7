package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
	"github.com/gcdoctor/gcdoctor/internal/plural"
	"github.com/gcdoctor/gcdoctor/pacer"
)

func newWhatIfCmd(e *env) *cobra.Command {
	var rf reportFlags
	var gogcs, limits []string
	var current, currentLimit, budget, goal, goVersion string
	var segment int
	cmd := &cobra.Command{
		Use:   "whatif LOG|BUNDLE",
		Short: "Predict what other GOGC and GOMEMLIMIT settings would do, from one gctrace log",
		Long: `Fits a model of the program's GC to one process of a gctrace log (its live
heap, allocation rate, cost per cycle, and where its pacer triggers) and
predicts, for the same work, the GC cycles, GC CPU, peak heap and risk of a
death spiral under each GOGC and GOMEMLIMIT asked for. With --budget (or the
cgroup memory limit a bundle recorded) it also recommends a setting.

Sizes take binary units as GOMEMLIMIT does: B, KiB, MiB, GiB or TiB, and
a fraction such as 1.5GiB. The runtime itself takes whole numbers only, so
every setting gcdoctor prints or passes on is written that way (1536MiB).`,
		Example: `  gcdoctor whatif gc.log
  gcdoctor whatif --gogc 50,100,200,400,800,off --memlimit 48MiB gc.log
  gcdoctor whatif --budget 2GiB --goal cpu evidence/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			return e.runWhatIf(cmd, args[0], gogcs, limits, current, currentLimit, budget, goal, goVersion, segment, &rf)
		},
	}
	cmd.Flags().StringSliceVar(&gogcs, "gogc", []string{"50", "100", "200", "400", "800"}, "GOGC values to predict (numbers or off)")
	cmd.Flags().StringSliceVar(&limits, "memlimit", nil, "GOMEMLIMIT values to predict, each combined with every --gogc (e.g. 512MiB)")
	cmd.Flags().StringVar(&current, "current-gogc", "", "GOGC the log was recorded with (default: from a bundle, else 100)")
	cmd.Flags().StringVar(&currentLimit, "current-memlimit", "", "GOMEMLIMIT the log was recorded with (default: from a bundle, else none)")
	cmd.Flags().StringVar(&budget, "budget", "", "memory budget to recommend a setting for (default: a bundle's cgroup limit)")
	cmd.Flags().StringVar(&goal, "goal", "cpu", "what the recommendation optimises: cpu or latency")
	cmd.Flags().StringVar(&goVersion, "go-version", "", "Go version of the program (default: from a bundle, else the log format)")
	cmd.Flags().IntVar(&segment, "segment", -1, "which process of the log to model (default: the one with the most GC CPU time)")
	rf.register(cmd)
	return cmd
}

func (e *env) runWhatIf(cmd *cobra.Command, path string, gogcs, limits []string, current, currentLimit, budget, goal, goVersion string, segIndex int, rf *reportFlags) error {
	settings, err := parseSettings(gogcs, limits)
	if err != nil {
		return err
	}
	tr, err := tuneRequest(budget, goal)
	if err != nil {
		return err
	}
	tr.Settings = settings
	if current != "" {
		if _, err := pacer.ParseGOGC(current); err != nil {
			return &usageError{fmt.Errorf("--current-gogc %s: %v", current, err)}
		}
	}
	if currentLimit != "" {
		if _, err := pacer.ParseMemoryLimit(currentLimit); err != nil {
			return &usageError{fmt.Errorf("--current-memlimit %s: %v", currentLimit, err)}
		}
	}
	df := &diagFlags{goVersion: goVersion, gogc: current}
	if goVersion != "" {
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
	if currentLimit != "" {
		in.GOMEMLIMIT = currentLimit
	}
	if segIndex >= 0 {
		if n := len(in.Log.Segments); segIndex >= n {
			return &usageError{fmt.Errorf("--segment %d: the log has %s (0–%d)", segIndex, plural.Count(n, "process", "processes"), n-1)}
		}
		tr.Segment, tr.SegmentSet = segIndex, true
	}
	in.Tune = tr
	e.recheck(in)
	d := diagnose.Diagnose(in)
	d.Caveats = append(d.Caveats, set.Notes...)
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
