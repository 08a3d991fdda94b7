package collect

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"github.com/gcdoctor/gcdoctor/bundle"
)

func TestReadCPUStat(t *testing.T) {
	tests := []struct {
		name, text                        string
		periods, throttled, throttledUSec int64
	}{
		{"v2", "usage_usec 7962608000\nuser_usec 5199924000\nsystem_usec 2762684000\nnr_periods 120\nnr_throttled 7\nthrottled_usec 350000\nnr_bursts 0\nburst_usec 0\n", 120, 7, 350000},
		// Version 1 counts the throttled time in ns.
		{"v1", "nr_periods 120\nnr_throttled 7\nthrottled_time 350000123\nnr_bursts 0\nburst_time 0\n", 120, 7, 350000},
		// Without the cpu controller a version 2 cpu.stat has usage only.
		{"no quota accounting", "usage_usec 10\nuser_usec 5\nsystem_usec 5\n", -1, -1, -1},
		{"garbage", "nr_periods x\nnr_throttled -3\nthrottled_usec\n", -1, -1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "cpu.stat")
			if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			periods, throttled, us := readCPUStat(p)
			if periods != tt.periods || throttled != tt.throttled || us != tt.throttledUSec {
				t.Errorf("readCPUStat = %d, %d, %d; want %d, %d, %d", periods, throttled, us, tt.periods, tt.throttled, tt.throttledUSec)
			}
		})
	}
	if p, th, us := readCPUStat(filepath.Join(t.TempDir(), "missing")); p != -1 || th != -1 || us != -1 {
		t.Errorf("missing file: %d, %d, %d; want -1s", p, th, us)
	}
}

func TestBindingDir(t *testing.T) {
	top := t.TempDir()
	mid := filepath.Join(top, "kubepods")
	leaf := filepath.Join(mid, "pod1", "ctr")
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(dir, cpuMax string) {
		if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte(cpuMax), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := bindingDir(leaf, top, readCPUV2); got != leaf {
		t.Errorf("no quota anywhere: %s, want the program's own cgroup %s", got, leaf)
	}
	write(leaf, "max 100000\n")
	write(mid, "150000 100000\n")
	if got := bindingDir(leaf, top, readCPUV2); got != mid {
		t.Errorf("a quota on an ancestor: %s, want %s", got, mid)
	}
	write(leaf, "50000 100000\n")
	if got := bindingDir(leaf, top, readCPUV2); got != leaf {
		t.Errorf("a smaller quota on the leaf: %s, want %s", got, leaf)
	}
}

// TestHostReader reads this machine: whatever it offers, the load
// average and /proc/stat exist on every Linux system.
func TestHostReader(t *testing.T) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		t.Skip(err)
	}
	r := hostReader{fs: fs, cpuStat: cpuStatFile(os.Getpid())}
	x := r.read()
	if x.Load1 < 0 || x.ProcsRunning < 1 || x.CPUMS <= 0 || x.StealMS < 0 || x.StealMS > x.CPUMS {
		t.Errorf("sample %+v lacks the load average or /proc/stat figures", x)
	}
	if r.cpuStat != "" && x.Throttled < 0 {
		t.Errorf("cpu.stat %s gave no nr_throttled: %+v", r.cpuStat, x)
	}
	t.Logf("cpu.stat %q: %+v", r.cpuStat, x)
}

func TestThinBuffer(t *testing.T) {
	b := thinBuffer[int]{limit: 4, every: time.Second}
	for i := range 4 {
		if b.add(i) {
			t.Fatalf("thinned at %d samples", i)
		}
	}
	if !b.add(4) || !slices.Equal(b.samples, []int{0, 2, 4}) || b.every != 2*time.Second {
		t.Errorf("after thinning: %v every %v, want [0 2 4] every 2s", b.samples, b.every)
	}
}

// TestRunHost checks that a run leaves host.csv and its summary beside
// rss.csv, and that meta.json tells a program that ended on its own from
// one that was stopped.
func TestRunHost(t *testing.T) {
	t.Parallel()
	bin := alloc(t)
	dir := filepath.Join(t.TempDir(), "bundle")
	w, err := bundle.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Spec{Path: bin, Args: []string{"-alloc=200ms"}, Out: w, SampleEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Cleanup()
	if len(res.Host) < 2 {
		t.Fatalf("%d host samples, want at least the first and the last", len(res.Host))
	}
	for i := 1; i < len(res.Host); i++ {
		if res.Host[i].Elapsed < res.Host[i-1].Elapsed {
			t.Errorf("host sample %d goes back in time: %v after %v", i, res.Host[i].Elapsed, res.Host[i-1].Elapsed)
		}
	}
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.Host()
	if err != nil || !slices.Equal(got, res.Host) {
		t.Errorf("host.csv = %v, %v; want %v", got, err, res.Host)
	}
	m := b.Meta()
	if m.Host == nil || !slices.Contains(m.Host.Measured, "load") || m.Host.Samples != len(res.Host) {
		t.Errorf("meta.json host = %+v, want a summary of %d samples with the load", m.Host, len(res.Host))
	}
	if m.Stopped || m.Files[bundle.HostFile] == "" {
		t.Errorf("stopped = %v, files = %v; want false and host.csv described", m.Stopped, m.Files)
	}

	s := Spec{Path: bin, Args: []string{"-alloc=0", "-wait", "-exit=0"}, Grace: 5 * time.Second}
	stopped, _ := runUntilReady(t, s, nil, func(cancel context.CancelCauseFunc) { cancel(errReady) })
	if !stopped.Meta.Stopped || stopped.ExitCode != 0 {
		t.Errorf("a program asked to stop: stopped = %v, exit %d; want true, 0", stopped.Meta.Stopped, stopped.ExitCode)
	}
}
