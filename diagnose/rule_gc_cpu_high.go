package diagnose

import (
	"fmt"
	"strings"

	"github.com/gcdoctor/gcdoctor/gctrace"
)

func init() {
	register(&Rule{
		ID:       "gc-cpu-high",
		Title:    "GC takes a large share of the CPU",
		Severity: Warning,
		Rank:     20,
		Evidence: "gctrace, or a running program's own figures",
		Rationale: `Every millisecond of CPU the collector uses is taken from the program:
background mark workers take whole Ps, and mark assists stall the goroutines
that allocate. At 10–15% GC CPU a service needs that much more hardware for
the same traffic, and its latency suffers when assists hit request paths.`,
		Detection: `The share of the CPU available to the program (wall time × P) that the
cycles' CPU fields account for, idle mark workers excluded, between the first
and the last cycle of a process: warning at ≥ 10%, critical at ≥ 25%, with at
least 3 cycles (and 10 cycles or 1 s of wall time, so that a compiler run
of half a second in a build does not count). Before Go 1.5 lines have no timestamps; the runtime's own
cumulative percentage is used when that is all there is.
From a running program's own figures (attach, doctor URL) the same
thresholds apply to the window's share, exact where the runtime measured
it (runtime/metrics CPU classes, or GCCPUFraction at both ends with the
process start time), else the runtime's average since the start, else an
estimate from the cycles and the heap they scan, whose range the finding
gives.`,
		Remedy: `In steady state the GC's CPU is proportional to the allocation rate divided
by GOGC: each cycle costs about as much as the live heap is large, and a
cycle comes every live × GOGC/100 bytes allocated. So there are two levers.
First, allocate less: reuse instead of reallocating, as alloc-churn says.
Second, give the GC more headroom: raise GOGC
(GOGC=200 roughly halves the GC CPU and grows the peak heap from about 2× to
3× the live heap) or, on Go ≥ 1.19, set GOMEMLIMIT to the memory you can
spare and raise GOGC under it. A process that runs to completion (a batch
job, a compiler run in a build) gets throughput advice instead: its total
run time is what counts and its memory is freed at exit, so GOGC, or
GOGC=off under a GOMEMLIMIT, buys the most; reuse through sync.Pool, which
serves a steady stream of requests, is not the first lever.`,
		Verify: `Run again under the same load with GODEBUG=gctrace=1 (or ` + "`gcdoctor run`" + `)
and compare gc_cpu_percent; ` + "`gcdoctor diff`" + ` tells whether the change is
beyond noise.`,
		Versions: `GOMEMLIMIT exists from Go 1.19; before that the only knob is GOGC (and, as a
last resort, a heap ballast).`,
		check: checkGCCPU,
		live:  liveGCCPU,
	})
}

func checkGCCPU(c *evidenceView, s *gctrace.Segment) *Finding {
	sm := &s.Summary
	pct := sm.GCCPUPercent
	source := "computed from the cycles' CPU fields"
	if !gctrace.Valid(pct) {
		if sm.RuntimeCPUPercent < 0 {
			return nil
		}
		pct = float64(sm.RuntimeCPUPercent)
		source = "the runtime's cumulative figure"
	}
	if pct < 10 || sm.Cycles < 3 {
		return nil
	}
	if gctrace.Valid(sm.WallS) && sm.WallS < 1 && sm.Cycles < 10 {
		// A process that lived less than a second (a compiler run in a
		// build): a share of so short a window says little.
		return nil
	}
	sev := Warning
	if pct >= 25 {
		sev = Critical
	}
	f := &Finding{Severity: sev, score: pct}
	f.Message = fmt.Sprintf("GC used %s%% of the CPU available to %s (%d P) over %d cycles (%s).",
		f1(pct), who(s), sm.Procs, sm.Cycles, source)
	if sm.RuntimeCPUPercent >= 0 && gctrace.Valid(sm.GCCPUPercent) {
		f.Message += fmt.Sprintf(" The runtime's own figure, averaged since the process started, is %d%%.", sm.RuntimeCPUPercent)
	}
	f.Evidence = []Evidence{
		{Label: "GC CPU", Value: pct, Unit: "%", Source: span(s)},
	}
	if gctrace.Valid(sm.AllocMBPerS) {
		f.Evidence = append(f.Evidence, Evidence{Label: "allocation rate", Value: sm.AllocMBPerS, Unit: "MB/s", Source: span(s)})
	}
	if sm.LiveLastMB >= 0 {
		f.Evidence = append(f.Evidence, Evidence{Label: "live heap (last cycle)", Value: float64(sm.LiveLastMB), Unit: "MB", Source: at(s, s.LastLine)})
	}
	if gctrace.Valid(sm.GCPerSecond) {
		f.Evidence = append(f.Evidence, Evidence{Label: "GC cycles", Value: sm.GCPerSecond, Unit: "/s", Source: span(s)})
	}
	if gctrace.Valid(sm.AssistPercent) {
		f.Evidence = append(f.Evidence, Evidence{Label: "mark assist share of mark CPU", Value: sm.AssistPercent, Unit: "%", Source: span(s)})
	}

	// Explain the cost as frequency × cost per cycle, in the program's numbers.
	if gctrace.Valid(sm.AllocMBPerS) && sm.Cycles > 1 {
		perCycle := sm.GCCPUMS / float64(sm.Cycles)
		f.Message += fmt.Sprintf(" It allocates %s MB/s, which starts a cycle every %s s, and each cycle costs %s ms of CPU.",
			f1(sm.AllocMBPerS), f1(1/sm.GCPerSecond), f1(perCycle))
	}
	// Short-lived garbage (see alloc-churn): reuse pays, and GC tuning
	// only treats the symptom.
	churn := gctrace.Valid(sm.AllocMBPerS) && gctrace.Valid(sm.LiveMeanMB) &&
		sm.AllocMBPerS >= 64 && sm.AllocMBPerS/max(sm.LiveMeanMB, 1) >= 10
	live := sm.LiveLastMB
	switch {
	case sm.Forced*2 >= sm.Cycles:
		f.Remedy = fmt.Sprintf("%d of the %d cycles were forced by runtime.GC or debug.FreeOSMemory (see forced-gc): remove those calls first. GOGC and GOMEMLIMIT do not apply to forced cycles, so tuning them would change little.", sm.Forced, sm.Cycles)
	case c.batch(s):
		f.Remedy = batchRemedy(c, s, live)
	case churn && sm.MinHeapCycles*2 < sm.Cycles:
		f.Remedy = "Most of what the program allocates dies within milliseconds (see alloc-churn). " + remedyReuse
	case sm.AtGoalCycles*2 >= sm.Cycles && gctrace.Valid(sm.MarkWallPct) && sm.MarkWallPct >= 50:
		f.Remedy = "The live heap fills the heap goal, so the GC runs back to back (see memlimit-death-spiral): raising GOGC changes nothing while a memory limit caps the goal. Make room between the live heap and the limit, or shrink the live heap."
	case sm.MinHeapCycles*2 >= sm.Cycles:
		f.Remedy = fmt.Sprintf("Most cycles run at the minimum heap goal (%s), so the live heap is not what paces the GC: the allocation rate is. Raise GOGC or set GOMEMLIMIT (see gc-min-heap), and cut allocations at their sites (heap profile, alloc_space).", mb(c.minHeapMB()))
	case live > 0 && !c.off:
		g2 := c.gogc * 2
		f.Remedy = fmt.Sprintf("Allocate less: the sites that allocate the most bytes are found with a heap profile ("+pprofAllocSpace+"); "+remedyReuseBuffers+". Or trade memory for CPU: GOGC=%d would roughly halve the GC CPU while the peak heap grows from about %s to %s (live %s × (1 + GOGC/100)).",
			g2, mb(live*int64(100+c.gogc)/100), mb(live*int64(100+g2)/100), mb(live))
		if c.goVersion(s).atLeast(19) != no {
			f.Remedy += " With a memory budget, set GOMEMLIMIT to it and raise GOGC under it."
		}
	default:
		f.Remedy = "Allocate less (heap profile, alloc_space) or raise GOGC."
	}
	if note := collectorNote(c, s); note != "" {
		f.Remedy += " " + note
	}
	f.Verify = fmt.Sprintf("Rerun under the same load and compare: GC CPU should fall well below %s%%.", f1(pct))
	return f
}

// collectorNote says what the collector the program ran with means for its
// GC CPU: Go 1.26 marks with Green Tea by default, which scans the objects
// of dense spans together and spends less CPU on heaps of many small
// objects; Go 1.25 has it as an experiment. From gctrace=2's scan lines it
// says which collector marked and how much of its marking ran dense.
func collectorNote(c *evidenceView, s *gctrace.Segment) string {
	sm := s.Summary
	v := c.goVersion(s)
	const compare = "compare the two builds on the program's own benchmarks with gcdoctor bench, whose --goexperiment flag takes greenteagc,nogreenteagc and rebuilds for each"
	switch {
	case sm.ScanCycles > 0 && !sm.Scan.GreenTea:
		return "The scan lines show the previous collector marked this heap (a build with GOEXPERIMENT=nogreenteagc): Go 1.26's default, Green Tea, marks heaps of many small objects with less CPU; " + compare + "."
	case sm.ScanCycles > 0 && gctrace.Valid(sm.DenseShare()) && sm.DenseShare() < 0.2:
		return fmt.Sprintf("Green Tea marked this heap, but only %s%% of the objects it scanned lay on dense spans, where it saves the most: the heap's objects are scattered (pointer-linked, mixed sizes), and the cost is the marking of each of them.", f1(sm.DenseShare()*100))
	case v.atLeast(25) == yes && v.atLeast(26) == no:
		return "Go 1.25 has the Green Tea collector as an experiment (GOEXPERIMENT=greenteagc; the default from Go 1.26), which marks heaps of many small objects with less CPU: " + compare + "."
	}
	return ""
}

// batchRemedy is gc-cpu-high's advice for a process that ran to
// completion: throughput for its one run rather than a service's steady
// state.
func batchRemedy(c *evidenceView, s *gctrace.Segment, live int64) string {
	var b strings.Builder
	if s.Label != "" {
		fmt.Fprintf(&b, "%s is one of the processes of a build (the go command's compilers and linkers), which run to completion: their allocations are the toolchain's, not the program's to change. ", capWho(s))
	} else {
		fmt.Fprintf(&b, "%s ran to completion: its total run time is what counts, not latency, and its memory is freed when it exits. ", capWho(s))
	}
	switch {
	case c.off:
		b.WriteString("GOGC is already off: only the allocations themselves are left to cut.")
	case live > 0:
		g := max(c.gogc*4, 400)
		fmt.Fprintf(&b, "Trade memory for throughput for the run: GOGC=%d would cut the GC CPU to about a quarter or less while the peak heap grows from about %s to %s (live %s × (1 + GOGC/100)).",
			g, mb(live*int64(100+c.gogc)/100), mb(live*int64(100+g)/100), mb(live))
	default:
		b.WriteString("Trade memory for throughput for the run: raise GOGC (GOGC=400 collects about a quarter as often).")
	}
	if !c.off && c.goVersion(s).atLeast(19) != no {
		b.WriteString(" With a memory budget, GOGC=off with GOMEMLIMIT set to it collects only when the heap nears the budget.")
	}
	if s.Label == "" {
		b.WriteString(" To allocate less, take an allocation profile of a run (-memprofile, or " + pprofAllocSpace + ") and cut its heaviest sites.")
	}
	return b.String()
}

// minHeapMB returns the minimum heap goal for the GOGC in effect, in MiB.
func (c *evidenceView) minHeapMB() int64 {
	return int64(4 * c.gogc / 100)
}

func liveGCCPU(c *evidenceView, v *liveView) *Finding {
	k := v.k
	pct := k.GCCPU.Fraction * 100
	if !known(pct) || pct < 10 || k.Cycles < 3 || k.WindowS < 1 && k.Cycles < 10 {
		return nil
	}
	f := &Finding{Severity: Warning, score: pct}
	if pct >= 25 && (k.GCCPU.Exact || !known(k.GCCPU.Low) || k.GCCPU.Low >= 0.25) {
		f.Severity = Critical
	}
	procs := "GOMAXPROCS unknown"
	if k.GOMAXPROCS > 0 {
		procs = fmt.Sprintf("%d P", k.GOMAXPROCS)
	}
	f.Message = fmt.Sprintf("GC used %s%% of the CPU available to %s (%s) %s, %d cycles (%s).", f1(pct), v.who(), procs, v.over(), k.Cycles, k.GCCPU.From)
	f.Evidence = []Evidence{{Label: "GC CPU", Value: pct, Unit: "%", Source: v.src()}}
	if !k.GCCPU.Exact && known(k.GCCPU.Low) {
		f.Caveats = append(f.Caveats, fmt.Sprintf("an estimate: between %s%% and %s%%", f1(k.GCCPU.Low*100), f1(k.GCCPU.High*100)))
	}
	if known(k.AllocBytesPerSecond) {
		f.Evidence = append(f.Evidence, Evidence{Label: "allocation rate", Value: k.AllocBytesPerSecond / (1 << 20), Unit: "MB/s", Source: v.src()})
	}
	f.Evidence = append(f.Evidence, Evidence{Label: "GC cycles", Value: k.CyclesPerSecond, Unit: "/s", Source: v.src()})
	if known(k.LiveHeapBytes) {
		f.Evidence = append(f.Evidence, Evidence{Label: "live heap", Value: k.LiveHeapBytes / (1 << 20), Unit: "MB", Source: v.src()})
	}
	gogc, off := v.gogc(c)
	live := k.LiveHeapBytes
	switch {
	case known(live) && known(k.HeapGoalBytes) && live >= 0.95*k.HeapGoalBytes:
		f.Remedy = "The live heap fills the heap goal, so the GC runs back to back (see memlimit-death-spiral): raising GOGC changes nothing while a memory limit caps the goal. Make room between the live heap and the limit, or shrink the live heap."
	case known(live) && live > 0 && !off:
		g2 := gogc * 2
		f.Remedy = fmt.Sprintf("Allocate less: the allocation profile this attach took ranks the sites that allocate the most bytes; "+remedyReuseBuffers+". Or trade memory for CPU: GOGC=%d would roughly halve the GC CPU while the heap goal grows from about %s to %s (live %s × (1 + GOGC/100)); with a memory budget, set GOMEMLIMIT to it and raise GOGC under it.",
			g2, mib(live*float64(100+gogc)/100), mib(live*float64(100+g2)/100), mib(live))
	default:
		f.Remedy = "Allocate less (the allocation profile ranks the sites) or raise GOGC."
	}
	f.Verify = fmt.Sprintf("Attach again under the same load: GC CPU should fall well below %s%%.", f1(pct))
	return f
}
