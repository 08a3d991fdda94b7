package collect

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prometheus/procfs"

	"github.com/gcdoctor/gcdoctor/bundle"
)

// hostSampler samples the contention of the machine's CPUs in the
// background while a program runs: a pause or a slow goroutine may be the
// host's doing (other processes, a CPU quota, a hypervisor) rather than
// the program's, and only measurements taken at the time can tell.
type hostSampler struct {
	quit chan struct{}
	done chan struct{}
	buf  thinBuffer[bundle.HostSample]
}

// sampleHost starts sampling every interval, with elapsed times counted
// from start, keeping at most limit samples. The cgroup throttling read is
// that of process pid.
func sampleHost(pid int, start time.Time, every time.Duration, limit int) *hostSampler {
	s := &hostSampler{quit: make(chan struct{}), done: make(chan struct{}), buf: thinBuffer[bundle.HostSample]{limit: max(limit, 2), every: every}}
	go func() {
		defer close(s.done)
		fs, err := procfs.NewDefaultFS()
		if err != nil {
			return
		}
		r := hostReader{fs: fs, cpuStat: cpuStatFile(pid)}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			x := r.read()
			x.Elapsed = time.Since(start)
			if s.buf.add(x) {
				tick.Reset(s.buf.every)
			}
			select {
			case <-s.quit:
				x := r.read()
				x.Elapsed = time.Since(start)
				s.buf.add(x)
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

// stop ends sampling and returns the samples taken, with one more taken
// now, so that the last interval ends with the program.
func (s *hostSampler) stop() []bundle.HostSample {
	close(s.quit)
	<-s.done
	return s.buf.samples
}

// writeHost saves the host samples in the bundle and names the file in
// m.Files.
func writeHost(w *bundle.Writer, m *bundle.Meta, samples []bundle.HostSample) error {
	if len(samples) == 0 {
		return nil
	}
	if err := w.WriteHost(samples); err != nil {
		return err
	}
	what := "CPU contention of the machine while the program ran: pressure (/proc/pressure/cpu), steal, load and the cgroup's throttling (cumulative counters)"
	if len(samples) > 1 {
		what += fmt.Sprintf(", sampled every %v", (samples[len(samples)-1].Elapsed-samples[0].Elapsed)/time.Duration(len(samples)-1))
	}
	m.Files[bundle.HostFile] = what
	return nil
}

// hostReader reads one host sample.
type hostReader struct {
	fs procfs.FS
	// cpuStat is the cgroup's cpu.stat, "" when there is none.
	cpuStat string
}

// read takes a sample; what cannot be read is -1.
func (r *hostReader) read() bundle.HostSample {
	x := bundle.HostSample{Load1: -1, ProcsRunning: -1, CPUSomeUS: -1, CPUMS: -1, StealMS: -1, Periods: -1, Throttled: -1, ThrottledUS: -1}
	if la, err := r.fs.LoadAvg(); err == nil {
		x.Load1 = la.Load1
	}
	if st, err := r.fs.Stat(); err == nil {
		c := st.CPUTotal
		// Guest time is already counted in user and nice time.
		// The kernel counts in ticks of 10 ms: whole ms lose nothing.
		x.CPUMS = math.Round((c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal) * 1000)
		x.StealMS = math.Round(c.Steal * 1000)
		x.ProcsRunning = int(min(st.ProcessesRunning, 1<<30))
	}
	if psi, err := r.fs.PSIStatsForResource("cpu"); err == nil && psi.Some != nil {
		x.CPUSomeUS = int64(min(psi.Some.Total, 1<<62))
	}
	if r.cpuStat != "" {
		x.Periods, x.Throttled, x.ThrottledUS = readCPUStat(r.cpuStat)
	}
	return x
}

// cpuStatFile returns the cpu.stat of the cgroup whose CPU quota binds
// process pid: the one with the smallest quota among its cgroup and their
// ancestors, since a quota throttles the whole subtree below it; else its
// own cgroup's, which then shows that nothing was throttled. It returns ""
// when there is no cgroup CPU controller to read.
func cpuStatFile(pid int) string {
	proc, err := procfs.NewProc(pid)
	if err != nil {
		return ""
	}
	cgroups, err := proc.Cgroups()
	if err != nil {
		return ""
	}
	mounts, err := procfs.GetProcMounts(pid)
	if err != nil {
		return ""
	}
	read := readCPUV2
	dir, top, ok := v1Dir(cgroups, mounts, "cpu")
	if ok {
		read = readCPUV1
	} else if dir, top, ok = v2Dir(cgroups, mounts); !ok {
		return ""
	}
	best := bindingDir(dir, top, read)
	p := filepath.Join(best, "cpu.stat")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// bindingDir returns the directory among dir and its ancestors up to top
// whose CPU limit, as read gives it, is the smallest; dir when none has
// one.
func bindingDir(dir, top string, read func(dir string) (float64, bool)) string {
	best, limit := dir, 0.0
	for d := dir; ; {
		if v, ok := read(d); ok && (limit == 0 || v < limit) {
			best, limit = d, v
		}
		parent := filepath.Dir(d)
		if d == top || parent == d || len(parent) < len(top) {
			return best
		}
		d = parent
	}
}

// readCPUStat reads the CFS periods, throttled periods and throttled time
// (µs) from a cgroup's cpu.stat: "throttled_usec" in version 2,
// "throttled_time" in ns in version 1. What it lacks is -1.
func readCPUStat(path string) (periods, throttled, throttledUS int64) {
	periods, throttled, throttledUS = -1, -1, -1
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, val, ok := bytes.Cut(sc.Bytes(), []byte(" "))
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(string(bytes.TrimSpace(val)), 10, 64)
		if err != nil || v < 0 {
			continue
		}
		switch string(key) {
		case "nr_periods":
			periods = v
		case "nr_throttled":
			throttled = v
		case "throttled_usec":
			throttledUS = v
		case "throttled_time":
			throttledUS = v / 1000
		}
	}
	return
}

// thinBuffer holds samples taken every interval, at most limit of them:
// when it is full, every other sample is dropped and the interval doubles,
// so that it covers a run of any length evenly (as rssBuffer does).
type thinBuffer[T any] struct {
	limit   int
	every   time.Duration
	samples []T
}

// add appends x, first thinning the samples when the buffer is full. It
// reports whether the interval changed.
func (b *thinBuffer[T]) add(x T) bool {
	thinned := false
	if len(b.samples) >= b.limit {
		n := 0
		for i := 0; i < len(b.samples); i += 2 {
			b.samples[n] = b.samples[i]
			n++
		}
		b.samples = b.samples[:n]
		b.every *= 2
		thinned = true
	}
	b.samples = append(b.samples, x)
	return thinned
}
