package evidence

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
)

// FromRun reads the evidence a finished run of command left: its gctrace,
// its RSS samples and what collect learned about the program.
func FromRun(ctx context.Context, res *collect.Result, command []string, opt Options) (*Set, error) {
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
	if err := readGCTrace(l, f, "gctrace.log", 0); err != nil {
		if errors.Is(err, gctrace.ErrNoCycles) {
			return nil, fmt.Errorf("no GC cycle in its output: not a Go program, or it exited before its first collection")
		}
		return nil, err
	}
	return l.set, nil
}
