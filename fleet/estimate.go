package fleet

import (
	"fmt"
	"math"
	"slices"
)

// Calibration is the GC CPU a cycle costs per MiB it scans (live heap,
// stacks and globals), which turns an instance's cycles into an estimate
// of its GC CPU when the runtime's CPU classes are not exported.
type Calibration struct {
	// MS is the cost, ms of CPU per cycle per scanned MiB, and LowMS–HighMS
	// its likely range.
	MS, LowMS, HighMS float64
	// Instances counts the instances of this fleet it was measured on, 0
	// when it is the default (DefaultCalibration).
	Instances int
	From      string // where it comes from, as a phrase
}

// DefaultCalibration is the cost per cycle and scanned MiB measured on the
// pacer's test logs (pacer/testdata/real, GOGC=100: six standard-library
// benchmarks, three runs each, Go 1.26 on 2 CPUs): the median of the
// eighteen runs' GC CPU per paced cycle over the heap it scanned, and the
// smallest and largest. Small heaps cost more per MiB (a cycle has a fixed
// cost), large ones less. TestDefaultCalibration recomputes it.
var DefaultCalibration = Calibration{MS: 0.39, LowMS: 0.19, HighMS: 0.94,
	From: "the pacer's test logs (pacer/testdata/real), as no instance here exports the runtime's CPU classes"}

// minCalibration is how many instances with exact GC CPU the fleet's own
// calibration needs.
const minCalibration = 3

// calibrate measures the cost per cycle and scanned MiB on the instances
// whose GC CPU the runtime gives, for the others' estimates.
func calibrate(r *Report) {
	var ks []float64
	for _, in := range r.Instances {
		if in.GCCoresEstimated || !known(in.GCCores) || !(in.GCPerSecond > 0) || in.LiveEstimated {
			continue
		}
		scan := in.ScanBytes() / (1 << 20)
		if !(scan > 0) {
			continue
		}
		mark := in.GCCores - pauseCores(in)
		if mark <= 0 {
			continue
		}
		ks = append(ks, mark/in.GCPerSecond/scan*1000)
	}
	if len(ks) < minCalibration {
		r.Calibration = DefaultCalibration
		return
	}
	slices.Sort(ks)
	q := func(p float64) float64 { return ks[int(math.Round(p*float64(len(ks)-1)))] }
	r.Calibration = Calibration{MS: q(0.5), LowMS: q(0.1), HighMS: q(0.9), Instances: len(ks),
		From: fmt.Sprintf("the %d instances of this fleet that export the runtime's CPU classes (median, 10th–90th percentile)", len(ks))}
}

// pauseCores is the CPU the GC's pauses take: while the world is stopped
// no P runs the program, so the runtime counts GOMAXPROCS × the pause
// (/cpu/classes/gc/pause).
func pauseCores(in *Instance) float64 {
	if !known(in.PauseSecsPerSec) {
		return 0
	}
	return in.PauseSecsPerSec * float64(max(in.GOMAXPROCS, 1))
}

// estimate fills in the GC CPU of an instance without the runtime's CPU
// classes: its cycles per second × the calibrated cost of a cycle for the
// heap it scans, plus its pauses.
func estimate(in *Instance, cal *Calibration) {
	if known(in.GCCores) && !in.GCCoresEstimated {
		return
	}
	what := "no go_cpu_classes_gc_* (runtime metrics off, or Go before 1.20): GC CPU is estimated"
	if known(in.GCCores) {
		in.miss(what + " from go_memstats_gc_cpu_fraction, an average since the process started")
		return
	}
	scan := in.ScanBytes() / (1 << 20)
	if !known(in.GCPerSecond) || !known(scan) {
		in.miss(what[:len(what)-len("estimated")] + "unknown: neither the cycles nor the live heap are known")
		return
	}
	pause := pauseCores(in)
	in.GCCores = in.GCPerSecond*cal.MS/1000*scan + pause
	in.GCCoresLow = in.GCPerSecond*cal.LowMS/1000*scan + pause
	in.GCCoresHigh = in.GCPerSecond*cal.HighMS/1000*scan + pause
	if known(in.ProcessCores) {
		// The GC runs on the process's own CPU.
		in.GCCores = math.Min(in.GCCores, in.ProcessCores)
		in.GCCoresLow = math.Min(in.GCCoresLow, in.ProcessCores)
		in.GCCoresHigh = math.Min(in.GCCoresHigh, in.ProcessCores)
	}
	in.GCCoresEstimated = true
	keep := in.GCAvailableShare
	defer func() {
		if in.gcCPUFraction {
			// The runtime's own share beats one computed from an estimate.
			in.GCAvailableShare = keep
		}
	}()
	in.GCCoresFrom = fmt.Sprintf("cycles/s × %.2g ms per cycle and scanned MiB (from %s) + pauses × GOMAXPROCS", cal.MS, cal.From)
	in.miss(what + " from its cycles, the heap they scan and its pauses")
	in.shares()
}
