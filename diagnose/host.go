package diagnose

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/gctrace"
)

// A sampling interval in which the machine's CPUs were this contended
// counts as busy: some task waited for a CPU a quarter of the time or
// more, the program's cgroup was throttled, or a tenth of the CPU time
// was stolen. A program alone on its CPUs stays far below: its own
// threads number GOMAXPROCS, as many as the CPUs.
const (
	busyPressurePct = 25
	busyStealPct    = 10
)

// hostSpan is the contention of the machine's CPUs over a span of a run,
// from the host samples' intervals that overlap it. A figure the samples
// do not give is -1.
type hostSpan struct {
	known bool
	// pressurePct and stealPct are averages weighted by overlap, %.
	pressurePct, stealPct float64
	throttled             int64
	throttledMS           float64
	load1                 float64 // the largest
	// busyPct is the share of the span in busy intervals, %.
	busyPct float64
}

// busy reports whether the span as a whole was contended.
func (h hostSpan) busy() bool {
	return h.known && (h.pressurePct >= busyPressurePct || h.throttled > 0 || h.stealPct >= busyStealPct)
}

// busyInterval reports whether one interval was contended.
func busyInterval(iv bundle.HostInterval) bool {
	return iv.PressurePct >= busyPressurePct || iv.Throttled > 0 || iv.StealPct >= busyStealPct
}

// hostDuring returns the contention over [from, to] of the run's clock.
// A span shorter than the sampling interval takes the interval that holds
// it: a pause of 30 ms is judged by the 100 ms around it.
func (c *evidenceView) hostDuring(from, to time.Duration) hostSpan {
	h := hostSpan{pressurePct: -1, stealPct: -1, throttled: -1, throttledMS: -1, load1: -1}
	var wP, wS, sumP, sumS, wAll, wBusy float64
	for _, iv := range c.hostIv {
		lo, hi := max(from, iv.Start), min(to, iv.End)
		if hi < lo || (hi == lo && !(from == to && from >= iv.Start && from <= iv.End)) {
			continue
		}
		// Weigh by overlap, at least a microsecond so that an instant
		// still counts.
		w := max(float64(hi-lo), float64(time.Microsecond))
		h.known = true
		wAll += w
		if busyInterval(iv) {
			wBusy += w
		}
		if iv.PressurePct >= 0 {
			wP += w
			sumP += w * iv.PressurePct
		}
		if iv.StealPct >= 0 {
			wS += w
			sumS += w * iv.StealPct
		}
		if iv.Throttled >= 0 {
			h.throttled = max(h.throttled, 0) + iv.Throttled
			h.throttledMS = max(h.throttledMS, 0) + iv.ThrottledMS
		}
		h.load1 = max(h.load1, iv.Load1)
	}
	if wP > 0 {
		h.pressurePct = sumP / wP
	}
	if wS > 0 {
		h.stealPct = sumS / wS
	}
	if wAll > 0 {
		h.busyPct = wBusy / wAll * 100
	}
	return h
}

// hostRun returns the contention over the whole run.
func (c *evidenceView) hostRun() hostSpan {
	return c.hostDuring(0, time.Duration(math.MaxInt64))
}

// describe states the figures of a span: "tasks waited for a CPU 93% of
// the time (PSI cpu some), load average up to 6.1 on 2 CPUs, the cgroup
// throttled 3 times (120 ms), 12% of the CPU time stolen".
func (h hostSpan) describe(ncpu int) string {
	var parts []string
	if h.pressurePct >= 0 {
		parts = append(parts, fmt.Sprintf("tasks waited for a CPU %s%% of the time (PSI cpu some)", sharePct(h.pressurePct)))
	}
	if h.load1 >= 0 {
		s := fmt.Sprintf("load average up to %s", f1(h.load1))
		if ncpu > 0 {
			s += fmt.Sprintf(" on %d CPUs", ncpu)
		}
		parts = append(parts, s)
	}
	switch {
	case h.throttled > 0:
		parts = append(parts, fmt.Sprintf("the cgroup throttled in %d quota periods (%s ms)", h.throttled, f1(h.throttledMS)))
	case h.throttled == 0:
		parts = append(parts, "no throttling")
	}
	if h.stealPct >= 0 {
		parts = append(parts, fmt.Sprintf("%s%% of the CPU time stolen", sharePct(h.stealPct)))
	}
	return strings.Join(parts, ", ")
}

// sharePct formats a share in percent: whole from 10% on, where a tenth of a
// percent of a sampled figure means nothing.
func sharePct(v float64) string {
	if v >= 10 {
		return f1(math.Round(v))
	}
	return f1(v)
}

// evidence returns the span's figures as a finding's evidence.
func (h hostSpan) evidence(label string) []Evidence {
	var ev []Evidence
	if h.pressurePct >= 0 {
		ev = append(ev, Evidence{Label: "CPU pressure " + label, Value: h.pressurePct, Unit: "%", Source: bundle.HostFile})
	}
	if h.throttled > 0 {
		ev = append(ev, Evidence{Label: "throttled " + label, Value: h.throttledMS, Unit: "ms", Source: bundle.HostFile})
	}
	if h.stealPct > 0 {
		ev = append(ev, Evidence{Label: "CPU steal " + label, Value: h.stealPct, Unit: "%", Source: bundle.HostFile})
	}
	if h.load1 >= 0 {
		ev = append(ev, Evidence{Label: "load average " + label, Value: h.load1, Unit: "", Source: bundle.HostFile})
	}
	return ev
}

// numCPU returns the run's CPU count, 0 when unknown.
func (c *evidenceView) numCPU() int {
	if c.in.Run == nil {
		return 0
	}
	return c.in.Run.NumCPU
}

// pauseHost is what the host samples say about a process's long pauses.
type pauseHost struct {
	// aligned reports that each pause was placed in time: the process is
	// the run's only one, so its clock is the samples'. Otherwise the
	// figures are the whole run's.
	aligned bool
	// pauses counts the pauses looked at, busy those in busy intervals.
	pauses, busy int
	// longest is the contention around the longest pause (aligned), or
	// over the whole run.
	longest hostSpan
	// longestBusy reports whether the longest pause came in a busy
	// interval.
	longestBusy bool
}

// host reports whether the host explains the pauses: the longest and at
// least half of them came while the CPUs were contended, or, when they
// cannot be placed in time, the run was contended for most of its time.
func (p *pauseHost) host() bool {
	if p.aligned {
		return p.longestBusy && p.busy*2 >= p.pauses
	}
	return p.longest.busyPct >= 50
}

// quiet reports whether the host was quiet during the pauses.
func (p *pauseHost) quiet() bool {
	if p.aligned {
		return p.busy == 0
	}
	return p.longest.busyPct < 10 && !p.longest.busy()
}

// pausesOnHost places the pauses of segment s of at least minMS against
// the host samples, nil when there are none. Only the run's own process
// has the samples' clock (gctrace counts from the process's start); the
// processes a command starts, such as the compilers of go build, are
// judged by the whole run.
func (c *evidenceView) pausesOnHost(s *gctrace.Segment, minMS float64) *pauseHost {
	if len(c.hostIv) == 0 {
		return nil
	}
	p := &pauseHost{}
	if len(c.in.Log.Segments) != 1 || len(s.Cycles) == 0 {
		p.longest = c.hostRun()
		p.longestBusy = p.longest.busy()
		return p
	}
	p.aligned = true
	worst := -1.0
	for i := range s.Cycles {
		cy := &s.Cycles[i]
		if !cy.HasAt {
			continue
		}
		ps, n := cy.Pauses()
		longest := 0.0
		for _, v := range ps[:n] {
			longest = max(longest, v)
		}
		if longest < minMS {
			continue
		}
		from := time.Duration(cy.At * float64(time.Second))
		h := c.hostDuring(from, from+time.Duration(cy.Wall()*float64(time.Millisecond)))
		if !h.known {
			continue
		}
		p.pauses++
		if h.busy() {
			p.busy++
		}
		if longest > worst {
			worst, p.longest, p.longestBusy = longest, h, h.busy()
		}
	}
	if p.pauses == 0 {
		return nil
	}
	return p
}

// batch reports whether segment s is a process that ran to completion: a
// run that ended on its own with status 0 (every process in its log, the
// go command's compilers included, had ended), or a process of a build's
// log, which the go command's "# pkg" headers mark (its compilers and
// linkers each run to completion). A service stopped by a signal is not
// one, whatever its exit status, nor a clean exit recorded before gcdoctor
// noted whether it had asked the program to stop.
func (c *evidenceView) batch(s *gctrace.Segment) bool {
	if r := c.in.Run; r != nil && r.ExitKnown && r.StopKnown {
		return r.ExitCode == 0 && !r.Stopped
	}
	for _, o := range c.in.Log.Segments {
		if o.Label != "" {
			return true
		}
	}
	return false
}
