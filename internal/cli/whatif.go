package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/goversion"
	"github.com/gcdoctor/gcdoctor/pacer"
	"github.com/gcdoctor/gcdoctor/report"
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
	cmd.Flags().IntVar(&segment, "segment", -1, "which process of the log to model (default: the one with the most cycles)")
	rf.register(cmd)
	return cmd
}

func (e *env) runWhatIf(cmd *cobra.Command, path string, gogcs, limits []string, current, currentLimit, budget, goal, goVersion string, segIndex int, rf *reportFlags) error {
	settings, err := parseSettings(gogcs, limits)
	if err != nil {
		return err
	}
	var obj pacer.Objective
	switch goal {
	case "cpu":
		obj = pacer.CPU
	case "latency":
		obj = pacer.Latency
	default:
		return &usageError{fmt.Errorf("--goal must be cpu or latency, not %q", goal)}
	}

	// The log, and what a bundle recorded about the run.
	var meta *bundle.Meta
	var log *gctrace.Log
	name := path
	if isBundle(path) {
		b, err := bundle.Open(path)
		if err != nil {
			return err
		}
		defer b.Close()
		meta = b.Meta()
		f, err := b.Open(bundle.GCTraceFile)
		if err != nil {
			return fmt.Errorf("%s: no %s in this bundle", path, bundle.GCTraceFile)
		}
		defer f.Close()
		name = strings.TrimSuffix(path, "/") + "/" + bundle.GCTraceFile
		if log, err = gctrace.Parse(f, name, gctrace.Options{KeepCycles: true}); err != nil {
			return err
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if log, err = gctrace.Parse(f, path, gctrace.Options{KeepCycles: true}); err != nil {
			return err
		}
	}
	if len(log.Segments) == 0 {
		return fmt.Errorf("%s: no process with GC cycles", name)
	}
	seg := log.Segments[0]
	if segIndex >= 0 {
		if segIndex >= len(log.Segments) {
			return &usageError{fmt.Errorf("--segment %d: the log has %d processes (0–%d)", segIndex, len(log.Segments), len(log.Segments)-1)}
		}
		seg = log.Segments[segIndex]
	} else {
		for _, s := range log.Segments {
			if s.Summary.Cycles > seg.Summary.Cycles {
				seg = s
			}
		}
	}

	opts := pacer.Options{}
	if meta != nil {
		if current == "" {
			current = meta.GOGC
		}
		if currentLimit == "" {
			currentLimit = meta.GOMEMLIMIT
		}
		if goVersion == "" {
			goVersion = meta.GoVersion
		}
		opts.RSS = meta.PeakRSSBytes
		if budget == "" && meta.CgroupMemoryLimitBytes > 0 {
			budget = fmt.Sprint(meta.CgroupMemoryLimitBytes)
		}
	}
	if current != "" {
		v, err := pacer.ParseGOGC(current)
		if err != nil {
			return &usageError{fmt.Errorf("--current-gogc %s: %v", current, err)}
		}
		opts.GOGC = v
	}
	if currentLimit != "" {
		v, err := pacer.ParseMemoryLimit(currentLimit)
		if err != nil {
			return &usageError{fmt.Errorf("--current-memlimit %s: %v", currentLimit, err)}
		}
		opts.MemoryLimit = v
	}
	if goVersion != "" {
		v, ok := goversion.Normalize(goVersion)
		if !ok {
			return &usageError{fmt.Errorf("--go-version %q is not a Go version such as go1.21.5", goVersion)}
		}
		opts.GoMinor = goversion.Minor(v)
	}
	m, err := pacer.Fit(seg, opts)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	wi := &report.WhatIf{Input: name, Segment: seg, Model: m}
	for _, s := range settings {
		wi.Predictions = append(wi.Predictions, m.Predict(s))
	}
	if budget != "" {
		b, err := pacer.ParseSize(budget)
		if err != nil {
			return &usageError{fmt.Errorf("--budget %s: %v", budget, err)}
		}
		if b <= 0 {
			return &usageError{errors.New("--budget must be positive")}
		}
		r := pacer.Recommend(m, b, obj)
		wi.Recommendation = &r
	}
	out := cmd.OutOrStdout()
	if rf.json {
		return report.WhatIfJSON(out, wi, version())
	}
	return report.WhatIfText(out, wi, report.TextOptions{Color: e.useColor(rf.color, out), Width: rf.width})
}
