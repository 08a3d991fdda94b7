package evidence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/plural"
)

// FromRun reads the evidence a finished run of command left: its gctrace,
// its RSS samples and what collect learned about the program.
func FromRun(ctx context.Context, res *collect.Result, command []string, opt Options) (*Set, error) {
	return fromRun(ctx, res, command, bundle.GCTraceFile, opt)
}

// runOutputName names a run's gctrace in notes and errors when it was
// not kept: there is no file to point at.
const runOutputName = "the run's output"

// fromRun is FromRun with the name the gctrace goes by in notes and
// errors.
func fromRun(ctx context.Context, res *collect.Result, command []string, name string, opt Options) (*Set, error) {
	// The rules place long pauses in time against the host's contention,
	// cycle by cycle.
	opt.KeepCycles = opt.KeepCycles || len(res.Host) > 1
	l := newLoader(ctx, &opt)
	in := l.in
	in.GoVersion, in.GOGC = opt.GoVersion, opt.GOGC
	m := res.Meta
	if m != nil {
		if in.GOGC == "" {
			in.GOGC = m.GOGC
		}
		in.GOMEMLIMIT = m.GOMEMLIMIT
	}
	if in.GoVersion == "" {
		in.GoVersion = res.GoVersion
	}
	in.RSS, in.PeakRSS, in.Host = res.RSS, res.PeakRSS, res.Host
	in.Run = &diagnose.RunInfo{Command: command, ExitCode: res.ExitCode, ExitKnown: true, WallS: res.Duration.Seconds(), PeakRSS: res.PeakRSS}
	if m != nil {
		r := runInfo(m)
		r.Command, r.ExitCode, r.ExitKnown, r.WallS, r.PeakRSS = in.Run.Command, in.Run.ExitCode, true, in.Run.WallS, in.Run.PeakRSS
		r.StopKnown = true
		in.Run = r
	}
	f, err := os.Open(res.GCTracePath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Every process of the run started after it did: cycles that end
	// later than the run's length after their process started were
	// printed again from an earlier run (see gctrace.Options.RunS).
	l.gcp = gctrace.NewParser(gctrace.Options{GOGC: gogcInt(in.GOGC), KeepCycles: opt.KeepCycles, RunS: res.Duration.Seconds()})
	if err := readGCTrace(l, f, name, 0); err != nil {
		if errors.Is(err, gctrace.ErrNoCycles) {
			return nil, fmt.Errorf("no GC cycle in its output: not a Go program, or it exited before its first collection")
		}
		return nil, err
	}
	log := l.gcp.Log()
	if n := res.Replayed; n == 1 {
		l.set.note("1 gctrace line the go command replayed from its build cache was left out: an earlier build under GODEBUG=gctrace=1 left it there, and \"go clean -cache\" removes it")
	} else if n > 1 {
		l.set.note("%d gctrace lines the go command replayed from its build cache were left out: an earlier build under GODEBUG=gctrace=1 left them there, and \"go clean -cache\" removes them", n)
	}
	if n, cycles := log.Replayed, plural.Count(log.ReplayedCycles, "GC cycle", "GC cycles"); n == 1 {
		l.set.note("1 process (%s) was left out: its cycles end after the run did, so it is output of an earlier run, printed again", cycles)
	} else if n > 1 {
		l.set.note("%d processes (%s) were left out: their cycles end after the run did, so they are output of earlier runs, printed again", n, cycles)
	}
	if len(log.Segments) == 0 {
		return nil, fmt.Errorf("no GC cycle of its own in its output, only %s printed again from earlier runs", plural.Count(log.ReplayedCycles, "cycle", "cycles"))
	}
	return l.set, nil
}

// FromKeptRun is FromRun for gcdoctor run: the diagnosis's check
// commands are rc's, and the bundle the run was kept in (dir, "" when
// none) is what they compare a new run with.
func FromKeptRun(ctx context.Context, res *collect.Result, command []string, dir string, rc diagnose.Recheck, opt Options) (*Set, error) {
	name := runOutputName
	if dir != "" {
		name = filepath.Join(dir, bundle.GCTraceFile)
	}
	set, err := fromRun(ctx, res, command, name, opt)
	if err != nil {
		return nil, err
	}
	set.Input.Recheck = rc
	if dir != "" {
		set.Input.Bundle = dir
	}
	return set, nil
}

// Run runs a program as spec says, into a bundle at dir, and reads the
// bundle as LoadBundle does; it also returns the program's exit status.
// With dir "" the bundle goes to a temporary directory that is removed
// before Run returns, and the Set names no bundle.
func Run(ctx context.Context, spec collect.Spec, dir string, opt Options) (*Set, int, error) {
	kept := dir != ""
	if !kept {
		tmp, err := os.MkdirTemp("", "gcdoctor-run-")
		if err != nil {
			return nil, 0, err
		}
		defer os.RemoveAll(tmp) // made here, holding only what this run wrote
		dir = filepath.Join(tmp, "bundle")
	}
	bw, err := bundle.Create(dir)
	if err != nil {
		return nil, 0, err
	}
	spec.Out = bw
	// The program is stopped by the signals collect passes on, not by
	// ctx: its diagnosis is wanted after an interrupt too.
	res, err := collect.Run(context.Background(), spec)
	if res == nil {
		return nil, 0, err
	}
	res.Cleanup()
	set, err := LoadBundle(ctx, dir, opt)
	if err == nil && !kept {
		set.Input.Bundle = ""
	}
	return set, res.ExitCode, err
}
