package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/escape"
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/heapprof"
	"github.com/gcdoctor/gcdoctor/internal/goversion"
	"github.com/gcdoctor/gcdoctor/lint"
	"github.com/gcdoctor/gcdoctor/pacer"
)

func newDoctorCmd(e *env) *cobra.Command {
	var rf reportFlags
	var df diagFlags
	var source []string
	var dir, out, budget, goal string
	var seconds int
	var cycles bool
	cmd := &cobra.Command{
		Use:   "doctor BUNDLE | URL | -- CMD [ARGS...]",
		Short: "One diagnosis from all the evidence there is, and what to do first",
		Long: `Runs every analyzer that has evidence and joins them into one diagnosis:
the gctrace of a run, the allocation profile with escape analysis, the
execution trace. It ends with what to do first: at most five actions,
ordered by urgency, each with its evidence and how to verify it.

The evidence comes from a bundle (a directory or .tar.gz written by
gcdoctor run or attach), from a running program's /debug/pprof (URL: it is
attached first), or from running a program (-- CMD).`,
		Example: `  gcdoctor doctor incident-42/
  gcdoctor doctor --source ./... localhost:6060
  gcdoctor doctor -- ./batchjob -input data.csv`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if err := df.validate(); err != nil {
				return err
			}
			tr, err := tuneRequest(budget, goal)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return &usageError{errors.New("give a bundle, a URL, or -- and a program to run")}
			}
			path := args[0]
			switch {
			case cmd.ArgsLenAtDash() == 0:
				// A program to run: collect into a bundle, then read it.
				if out == "" {
					tmp, err := os.MkdirTemp("", "gcdoctor-doctor-")
					if err != nil {
						return err
					}
					defer os.RemoveAll(tmp)
					out = filepath.Join(tmp, "bundle")
				}
				bw, err := bundle.Create(out)
				if err != nil {
					return err
				}
				res, err := collect.Run(context.Background(), collect.Spec{Path: args[0], Args: args[1:], Stdin: e.stdin,
					Stdout: cmd.OutOrStdout(), Stderr: e.stderr, Out: bw, Signals: true, ToolVersion: version()})
				if res == nil {
					return err
				}
				res.Cleanup()
				path = out
			case len(args) > 1:
				return &usageError{errors.New("one bundle or URL at a time; a program goes after --")}
			case !isBundle(path):
				if out == "" {
					out = "gcdoctor-doctor-" + time.Now().Format("20060102-150405")
				}
				if err := e.runAttachOnly(cmd, path, out, seconds); err != nil {
					return err
				}
				path = out
			}
			in, missing, err := doctorInput(cmd.Context(), path, source, dir, &df)
			if err != nil {
				return err
			}
			in.Tune = completeTuneRequest(tr, in)
			for _, m := range missing {
				fmt.Fprintf(e.stderr, "gcdoctor: %s\n", m)
			}
			d := diagnose.Diagnose(in)
			d.Notes = append(d.Notes, missing...)
			d.FirstActions = true
			if rf.format == "json" && !cycles {
				// Kept for the model and the charts; in JSON only when asked.
				for _, s := range d.Log.Segments {
					s.Cycles = nil
				}
			}
			return e.emit(cmd, d, &rf)
		},
	}
	cmd.Flags().StringSliceVar(&source, "source", nil, "package patterns to check (gcdoctor lint, ranked by the profile) and to explain the profile's sites with escape analysis (e.g. ./...)")
	cmd.Flags().StringVar(&budget, "budget", "", "memory budget for the tuning advice, e.g. 2GiB (default: the cgroup memory limit a bundle recorded)")
	cmd.Flags().StringVar(&goal, "goal", "cpu", "what the tuning advice optimises: cpu or latency")
	cmd.Flags().StringVar(&dir, "dir", ".", "module directory for --source")
	cmd.Flags().StringVar(&out, "out", "", "bundle directory for what is collected (URL or CMD)")
	cmd.Flags().IntVar(&seconds, "seconds", 5, "trace length when attaching to a URL")
	cmd.Flags().BoolVar(&cycles, "cycles", false, "with --json, include every cycle (segments[].cycles[])")
	rf.register(cmd)
	df.register(cmd)
	return cmd
}

// runAttachOnly collects from a /debug/pprof endpoint into a new bundle.
func (e *env) runAttachOnly(cmd *cobra.Command, url, out string, seconds int) error {
	w, err := bundle.Create(out)
	if err != nil {
		return err
	}
	res, err := collect.Attach(context.Background(), collect.AttachSpec{URL: url, Seconds: seconds, Out: w, ToolVersion: version(),
		Progress: func(what string) { fmt.Fprintf(e.stderr, "gcdoctor: fetching the %s\n", what) }})
	if err != nil {
		if res == nil || len(res.Files) == 0 {
			os.RemoveAll(out)
		}
		return err
	}
	fmt.Fprintf(e.stderr, "gcdoctor: evidence kept in %s\n", out)
	return nil
}

// doctorInput reads every kind of evidence a bundle holds. Evidence that is
// missing or unreadable is named in the returned notes and left out: the
// diagnosis covers what is there.
func doctorInput(ctx context.Context, path string, source []string, dir string, df *diagFlags) (*diagnose.Input, []string, error) {
	b, err := bundle.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer b.Close()
	in := bundleInput(b, df)
	in.Bundle = path
	var notes []string
	name := func(f string) string { return strings.TrimSuffix(path, "/") + "/" + f }
	found := 0
	if b.Has(bundle.GCTraceFile) {
		if f, err := b.Open(bundle.GCTraceFile); err == nil {
			log, err := gctrace.Parse(f, name(bundle.GCTraceFile), gctrace.Options{GOGC: (&diagFlags{gogc: in.GOGC}).gogcInt(), KeepCycles: true})
			f.Close()
			if err != nil {
				notes = append(notes, fmt.Sprintf("gctrace left out: %v", err))
			} else {
				in.Log = log
				found++
			}
		}
	} else {
		notes = append(notes, "no gctrace.log in the bundle: no GC cycle figures (gcdoctor run records one)")
	}
	for _, pf := range []string{bundle.AllocsFile, bundle.HeapFile} {
		if !b.Has(pf) {
			continue
		}
		f, err := b.Open(pf)
		if err != nil {
			continue
		}
		p, err := heapprof.Read(f, name(pf))
		f.Close()
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s left out: %v", pf, err))
			continue
		}
		h := &diagnose.HeapEvidence{Name: name(pf), Profile: p, Source: newSourceReader().line}
		h.Top = p.Top(heapprof.SiteOptions{N: 10})
		if len(source) > 0 {
			ectx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			if rep, err := escape.Analyze(ectx, dir, source); rep != nil {
				h.Escape = rep
			} else {
				notes = append(notes, fmt.Sprintf("escape analysis left out: %v", err))
			}
			cancel()
		}
		in.Heap = h
		found++
		break
	}
	if in.Heap == nil {
		notes = append(notes, "no allocation profile in the bundle: no allocation sites (gcdoctor attach collects one)")
	}
	if len(source) > 0 {
		res, err := lint.Run(dir, source, lint.Options{})
		if err != nil {
			notes = append(notes, fmt.Sprintf("source checks left out: %v", err))
		} else {
			in.Lint = lintEvidence(source, res)
			found++
			if len(res.Broken) > 0 {
				notes = append(notes, fmt.Sprintf("source checks: %d packages do not compile and were checked as far as possible", len(res.Broken)))
			}
		}
	}
	if b.Has(bundle.TraceFile) {
		if f, err := b.Open(bundle.TraceFile); err == nil {
			res, err := exectrace.Analyze(f, exectrace.Options{})
			f.Close()
			var te *exectrace.TruncatedError
			switch {
			case res != nil && (err == nil || errors.As(err, &te)):
				in.Trace = &diagnose.TraceEvidence{Name: name(bundle.TraceFile), Result: res}
				found++
				if err != nil {
					notes = append(notes, fmt.Sprintf("trace.out is cut short: %v; its figures are partial", err))
				}
			default:
				notes = append(notes, fmt.Sprintf("trace.out left out: %v", err))
			}
		}
	} else {
		notes = append(notes, "no execution trace in the bundle: no goroutine or pause analysis (gcdoctor attach --seconds N records one)")
	}
	if found == 0 {
		return nil, notes, fmt.Errorf("%s: no evidence gcdoctor can read (%s)", path, strings.Join(notes, "; "))
	}
	return in, notes, nil
}

// lintEvidence turns the source checks' result into diagnosis evidence.
func lintEvidence(patterns []string, res *lint.Result) *diagnose.LintEvidence {
	le := &diagnose.LintEvidence{Patterns: patterns}
	for _, d := range res.Diagnostics {
		title := d.Rule
		if a := lint.Lookup(d.Rule); a != nil {
			title = lint.Title(a)
		}
		le.Findings = append(le.Findings, diagnose.LintFinding{Rule: d.Rule, Title: title, File: d.File, Line: d.Line,
			Column: d.Column, Message: d.Message, Fixable: len(d.SuggestedFixes) > 0})
	}
	for _, b := range res.Broken {
		le.Broken = append(le.Broken, b.Package)
	}
	return le
}

// tuneRequest checks the tuning flags.
func tuneRequest(budget, goal string) (*diagnose.TuneRequest, error) {
	tr := &diagnose.TuneRequest{}
	switch goal {
	case "cpu":
		tr.Objective = pacer.CPU
	case "latency":
		tr.Objective = pacer.Latency
	default:
		return nil, &usageError{fmt.Errorf("--goal must be cpu or latency, not %q", goal)}
	}
	if budget != "" {
		b, err := pacer.ParseSize(budget)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--budget %s: %v", budget, err)}
		}
		if b <= 0 {
			return nil, &usageError{errors.New("--budget must be positive")}
		}
		tr.Budget, tr.BudgetSource = b, "--budget"
	}
	return tr, nil
}

// completeTuneRequest fills in what the evidence knows about the run: the
// setting the log was recorded with, the Go version, the peak RSS and, with
// no --budget, the container's memory limit.
func completeTuneRequest(tr *diagnose.TuneRequest, in *diagnose.Input) *diagnose.TuneRequest {
	if in.Log == nil {
		return nil
	}
	if g, err := pacer.ParseGOGC(in.GOGC); err == nil && in.GOGC != "" {
		tr.Options.GOGC = g
	}
	if l, err := pacer.ParseGOMEMLIMIT(in.GOMEMLIMIT); err == nil && in.GOMEMLIMIT != "" {
		tr.Options.MemoryLimit = l
	}
	tr.Options.GoMinor = goversion.Minor(in.GoVersion)
	tr.Options.RSS = in.PeakRSS
	if tr.Budget == 0 && in.Run != nil && in.Run.CgroupMemoryLimit > 0 {
		tr.Budget, tr.BudgetSource = in.Run.CgroupMemoryLimit, "the cgroup memory limit"
	}
	return tr
}
