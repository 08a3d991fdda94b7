package bundle

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// HostSample is one reading of how contended the machine's CPUs were,
// taken beside an RSS sample. The counters are cumulative, as the kernel
// keeps them, so that any two samples give the contention between them
// (see HostIntervals); a figure that could not be read is -1.
type HostSample struct {
	// Elapsed is the time since the program started.
	Elapsed time.Duration
	// Load1 is the one-minute load average (/proc/loadavg).
	Load1 float64
	// ProcsRunning is the number of tasks running or ready to run on the
	// machine at the sample, the program's own threads included
	// (procs_running in /proc/stat).
	ProcsRunning int
	// CPUSomeUS is the time in which at least one task waited for a CPU
	// (/proc/pressure/cpu, "some" total), µs.
	CPUSomeUS int64
	// CPUMS is the time of all CPUs in every state and StealMS the part a
	// hypervisor gave to other machines (/proc/stat), ms.
	CPUMS, StealMS float64
	// Periods and Throttled count the CFS quota periods of the program's
	// cgroup and those in which it was throttled; ThrottledUS is the time
	// it was throttled, µs (cpu.stat).
	Periods, Throttled, ThrottledUS int64
}

// hostHeader is the first line of host.csv, in the column order of
// HostSample.
const hostHeader = "elapsed_ms,load1,procs_running,cpu_some_us,cpu_ms,steal_ms,nr_periods,nr_throttled,throttled_us"

// encodeHost writes samples in the host.csv format; a figure that is not
// known (-1) is an empty field.
func encodeHost(w io.Writer, samples []HostSample) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(hostHeader + "\n")
	var buf []byte
	float := func(v float64) {
		if v >= 0 {
			buf = strconv.AppendFloat(buf, v, 'f', -1, 64)
		}
	}
	integer := func(v int64) {
		if v >= 0 {
			buf = strconv.AppendInt(buf, v, 10)
		}
	}
	for _, s := range samples {
		buf = buf[:0]
		float(float64(s.Elapsed) / float64(time.Millisecond))
		buf = append(buf, ',')
		float(s.Load1)
		buf = append(buf, ',')
		integer(int64(s.ProcsRunning))
		buf = append(buf, ',')
		integer(s.CPUSomeUS)
		buf = append(buf, ',')
		float(s.CPUMS)
		buf = append(buf, ',')
		float(s.StealMS)
		buf = append(buf, ',')
		integer(s.Periods)
		buf = append(buf, ',')
		integer(s.Throttled)
		buf = append(buf, ',')
		integer(s.ThrottledUS)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// hostColumns are the columns of host.csv; only elapsed_ms is required,
// since each of the others may be unreadable on a given machine.
var hostColumns = strings.Split(hostHeader, ",")

// decodeHost parses the host.csv format. Columns are found by their
// header name, as in rss.csv; a missing column or an empty field reads as
// unknown (-1).
func decodeHost(r io.Reader) ([]HostSample, error) {
	sc := bufio.NewScanner(r)
	lineNo := 0
	var cols []int // index in hostColumns → field index, -1 when absent
	var samples []HostSample
	for sc.Scan() {
		lineNo++
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Split(line, ",")
		if cols == nil {
			cols = make([]int, len(hostColumns))
			for i := range cols {
				cols[i] = -1
			}
			for i, f := range fields {
				for j, c := range hostColumns {
					if strings.TrimSpace(f) == c {
						cols[j] = i
					}
				}
			}
			if cols[0] < 0 {
				return nil, fmt.Errorf("%s:%d: header %q lacks an elapsed_ms column", HostFile, lineNo, line)
			}
			continue
		}
		var vals [9]float64
		for j, c := range cols {
			vals[j] = -1
			if c < 0 {
				continue
			}
			if c >= len(fields) {
				return nil, fmt.Errorf("%s:%d: want at least %d fields, have %d", HostFile, lineNo, c+1, len(fields))
			}
			f := strings.TrimSpace(fields[c])
			if f == "" && j > 0 {
				continue
			}
			v, err := strconv.ParseFloat(f, 64)
			// 2^53 keeps every counter exact as a float64 and is
			// beyond any real one (285 years of µs).
			if err != nil || math.IsNaN(v) || v < 0 || v > 1<<53 {
				return nil, fmt.Errorf("%s:%d: invalid %s %q", HostFile, lineNo, hostColumns[j], fields[c])
			}
			vals[j] = v
		}
		if vals[0] > float64(math.MaxInt64/int64(time.Millisecond)) {
			return nil, fmt.Errorf("%s:%d: invalid elapsed_ms %q", HostFile, lineNo, fields[cols[0]])
		}
		if len(samples) >= maxRSSSamples {
			return nil, fmt.Errorf("%s:%d: more than %d samples", HostFile, lineNo, maxRSSSamples)
		}
		samples = append(samples, HostSample{
			Elapsed:      time.Duration(math.Round(vals[0] * float64(time.Millisecond))),
			Load1:        vals[1],
			ProcsRunning: int(vals[2]),
			CPUSomeUS:    int64(vals[3]),
			CPUMS:        vals[4],
			StealMS:      vals[5],
			Periods:      int64(vals[6]),
			Throttled:    int64(vals[7]),
			ThrottledUS:  int64(vals[8]),
		})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", HostFile, lineNo+1, err)
	}
	if cols == nil {
		return nil, fmt.Errorf("%s: empty file, want header %q", HostFile, hostHeader)
	}
	return samples, nil
}

// HostInterval is the contention of the machine's CPUs between two
// consecutive samples. A figure the samples do not give is -1.
type HostInterval struct {
	// Start and End are the times of the two samples since the program
	// started.
	Start, End time.Duration
	// PressurePct is the share of the interval in which at least one task
	// of the machine waited for a CPU, %.
	PressurePct float64
	// StealPct is the share of all CPUs' time that a hypervisor gave to
	// other machines, %.
	StealPct float64
	// Throttled is the number of CFS periods in which the program's cgroup
	// was throttled, and ThrottledMS how long it was, ms.
	Throttled   int64
	ThrottledMS float64
	// Load1 and ProcsRunning are those of the later sample.
	Load1        float64
	ProcsRunning int
}

// HostIntervals returns the contention between each pair of consecutive
// samples. A counter that went backwards (the cgroup changed, the machine
// rebooted) gives an unknown figure for that interval rather than a
// negative one.
func HostIntervals(samples []HostSample) []HostInterval {
	var out []HostInterval
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		wall := b.Elapsed - a.Elapsed
		if wall <= 0 {
			continue
		}
		iv := HostInterval{Start: a.Elapsed, End: b.Elapsed, PressurePct: -1, StealPct: -1, Throttled: -1, ThrottledMS: -1,
			Load1: b.Load1, ProcsRunning: b.ProcsRunning}
		if a.CPUSomeUS >= 0 && b.CPUSomeUS >= a.CPUSomeUS {
			iv.PressurePct = min(100, float64(b.CPUSomeUS-a.CPUSomeUS)/float64(wall.Microseconds())*100)
		}
		if a.CPUMS >= 0 && a.StealMS >= 0 && b.CPUMS > a.CPUMS && b.StealMS >= a.StealMS {
			iv.StealPct = min(100, (b.StealMS-a.StealMS)/(b.CPUMS-a.CPUMS)*100)
		}
		if a.Throttled >= 0 && b.Throttled >= a.Throttled && a.ThrottledUS >= 0 && b.ThrottledUS >= a.ThrottledUS {
			iv.Throttled = b.Throttled - a.Throttled
			iv.ThrottledMS = float64(b.ThrottledUS-a.ThrottledUS) / 1000
		}
		out = append(out, iv)
	}
	return out
}

// HostSummary is what host.csv says of the whole run, for meta.json. A
// figure is meaningful only when Measured names its source.
type HostSummary struct {
	// Measured names what could be read: "pressure" (/proc/pressure/cpu),
	// "steal" and "procs_running" (/proc/stat), "load" (/proc/loadavg),
	// "throttling" (the cgroup's cpu.stat).
	Measured []string `json:"measured"`
	// CPUCgroup is the cgroup whose cpu.stat was read: the one whose CPU
	// quota binds the program, else the program's own.
	CPUCgroup string `json:"cpu_cgroup,omitempty"`
	// Samples is the number of samples in host.csv.
	Samples int `json:"samples"`
	// PressurePct is the share of the run in which at least one task
	// waited for a CPU, and PressureMaxPct the largest share over one
	// sampling interval, %.
	PressurePct    float64 `json:"cpu_pressure_some_pct"`
	PressureMaxPct float64 `json:"cpu_pressure_some_max_pct"`
	// StealPct is the share of the CPUs' time stolen by a hypervisor, %.
	StealPct float64 `json:"steal_pct"`
	// Throttled is the number of quota periods in which the program's
	// cgroup was throttled, out of Periods; ThrottledMS the time, ms.
	Throttled   int64   `json:"throttled_periods"`
	Periods     int64   `json:"periods"`
	ThrottledMS float64 `json:"throttled_ms"`
	// Load1Max and ProcsRunningMax are the largest load average and count
	// of runnable tasks seen.
	Load1Max        float64 `json:"load1_max"`
	ProcsRunningMax int     `json:"procs_running_max"`
}

// SummarizeHost sums up samples over the run: the counters from the first
// sample to the last, the instantaneous figures at their largest. It
// returns nil when there are fewer than two samples.
func SummarizeHost(samples []HostSample) *HostSummary {
	if len(samples) < 2 {
		return nil
	}
	first, last := samples[0], samples[len(samples)-1]
	sum := &HostSummary{Samples: len(samples)}
	whole := HostIntervals([]HostSample{first, last})
	if len(whole) == 0 {
		return nil
	}
	w := whole[0]
	if w.PressurePct >= 0 {
		sum.Measured = append(sum.Measured, "pressure")
		sum.PressurePct = round2(w.PressurePct)
		for _, iv := range HostIntervals(samples) {
			sum.PressureMaxPct = max(sum.PressureMaxPct, round2(iv.PressurePct))
		}
	}
	if w.StealPct >= 0 {
		sum.Measured = append(sum.Measured, "steal")
		sum.StealPct = round2(w.StealPct)
	}
	if w.Throttled >= 0 {
		sum.Measured = append(sum.Measured, "throttling")
		sum.Throttled, sum.ThrottledMS = w.Throttled, round2(w.ThrottledMS)
		if first.Periods >= 0 && last.Periods >= first.Periods {
			sum.Periods = last.Periods - first.Periods
		}
	}
	load, procs := false, false
	for _, s := range samples {
		if s.Load1 >= 0 {
			load = true
			sum.Load1Max = max(sum.Load1Max, s.Load1)
		}
		if s.ProcsRunning >= 0 {
			procs = true
			sum.ProcsRunningMax = max(sum.ProcsRunningMax, s.ProcsRunning)
		}
	}
	if load {
		sum.Measured = append(sum.Measured, "load")
	}
	if procs {
		sum.Measured = append(sum.Measured, "procs_running")
	}
	return sum
}

// round2 keeps two decimals: meta.json is read by people.
func round2(v float64) float64 { return math.Round(v*100) / 100 }
