package live_test

import (
	"bufio"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/live"
)

// serverBin builds testdata/server once for the package's tests.
var serverBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "live-server")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "server")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/server").CombinedOutput()
	if err != nil {
		return "", &buildError{err, string(out)}
	}
	return bin, nil
})

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string {
	return "building testdata/server: " + e.err.Error() + "\n" + e.out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bin, err := serverBin(); err == nil {
		os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

// server is a running testdata/server with its gctrace going to a file.
type server struct {
	addr   string
	start  time.Time // when its main began
	stderr string
	cmd    *exec.Cmd
}

// startServer starts testdata/server with args under GODEBUG=gctrace=1.
// It is killed when the test ends.
func startServer(t *testing.T, deadline time.Time, args ...string) *server {
	t.Helper()
	bin, err := serverBin()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{stderr: filepath.Join(t.TempDir(), "stderr")}
	errf, err := os.Create(s.stderr)
	if err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1", "GOGC=100", "GOMEMLIMIT=off")
	s.cmd.Stderr = errf
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		errf.Close()
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for s.addr == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the server exited before printing its address")
			}
			if v, ok := strings.CutPrefix(l, "start "); ok {
				ns, _ := strconv.ParseInt(v, 10, 64)
				s.start = time.Unix(0, ns)
			}
			if v, ok := strings.CutPrefix(l, "addr "); ok {
				s.addr = v
			}
		case <-time.After(time.Until(deadline)):
			t.Fatal("the server did not print its address in time")
		}
	}
	return s
}

// cycles stops the server and returns the cycles its gctrace lines give.
func (s *server) cycles(t *testing.T) []gctrace.Cycle {
	t.Helper()
	s.cmd.Process.Kill()
	s.cmd.Wait()
	f, err := os.Open(s.stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := gctrace.Parse(f, "stderr", gctrace.Options{KeepCycles: true})
	if err != nil && len(log.Segments) == 0 {
		t.Fatal(err)
	}
	if len(log.Segments) != 1 {
		t.Fatalf("%d gctrace segments, want 1", len(log.Segments))
	}
	return log.Segments[0].Cycles
}

// window samples the server from its first cycles until minCycles more
// have ended, with samples in between for the pause rings.
func window(t *testing.T, s *server, deadline time.Time, minCycles int) (start, end *live.Snapshot, during []*live.Snapshot) {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	sm, err := live.NewSampler(s.addr)
	if err != nil {
		t.Fatal(err)
	}
	sample := func(only ...live.Source) *live.Snapshot {
		for {
			snap, _, err := sm.Sample(ctx, only...)
			if err == nil {
				return snap
			}
			if ctx.Err() != nil {
				t.Fatalf("sampling %s: %v", s.addr, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// Let the program warm up: its first cycles run at the minimum heap.
	for start = sample(); counter(start) < 5; start = sample() {
		time.Sleep(100 * time.Millisecond)
	}
	for {
		time.Sleep(200 * time.Millisecond)
		end = sample()
		if counter(end)-counter(start) >= minCycles {
			// One more cycle, so that the gctrace shows the goal in
			// force at the end of the window.
			for next := end; counter(next) == counter(end); next = sample() {
				time.Sleep(20 * time.Millisecond)
			}
			return start, end, during
		}
		during = append(during, end)
		if ctx.Err() != nil {
			t.Fatalf("fewer than %d cycles before the deadline", minCycles)
		}
	}
}

// counter is the cycle count a snapshot gives, from the source Between
// counts them with.
func counter(s *live.Snapshot) int {
	switch {
	case s.Agent != nil:
		return int(*s.Agent.Metrics["/gc/cycles/total:gc-cycles"].Uint64)
	case s.MemStats != nil:
		return int(s.MemStats.NumGC)
	case s.Metrics != nil && s.Metrics.Pauses != nil:
		return int(s.Metrics.Pauses.Count)
	}
	return -1
}

// ref is what the server's gctrace lines say of a window.
type ref struct {
	cycles int // cycles that ended between the samples, by the clock
	// gcCPU is the GC CPU of the cycles lo+1..hi over the time from the
	// end of lo to the end of hi; gcCPUMark the same without the
	// stop-the-world phases, whose CPU gctrace counts from when the world
	// began to stop and the runtime from when it had stopped.
	gcCPU, gcCPUMark float64
	pauseMax         float64 // longest pause of a cycle, both phases together, ms
	phaseMax         float64 // longest single stop-the-world phase, ms
	sinceStart       int     // the runtime's cumulative percentage on cycle hi
	nextGoalMB       int64   // the goal of cycle hi+1: NextGC at the end of the window
	liveMB           int64   // live heap marked by cycle hi
	byNumber         map[int]gctrace.Cycle
}

// reference reads the gctrace cycles of the window: by the clock for the
// count, by number (lo, hi] for everything else.
func reference(t *testing.T, cs []gctrace.Cycle, s *server, a, b time.Time, lo, hi int) ref {
	t.Helper()
	r := ref{sinceStart: -1, nextGoalMB: -1, liveMB: -1}
	byNum := map[int]gctrace.Cycle{}
	endOf := func(c gctrace.Cycle) time.Time {
		return s.start.Add(time.Duration((c.At*1000 + c.Wall()) * float64(time.Millisecond)))
	}
	for _, c := range cs {
		byNum[c.Num] = c
		if e := endOf(c); e.After(a) && !e.After(b) {
			r.cycles++
		}
	}
	first, ok1 := byNum[lo]
	last, ok2 := byNum[hi]
	if !ok1 || !ok2 {
		t.Fatalf("the gctrace lacks cycle %d or %d", lo, hi)
	}
	cpu, mark := 0.0, 0.0
	for n := lo + 1; n <= hi; n++ {
		c := byNum[n]
		mark += c.CPU.Assist + c.CPU.Background
		cpu += c.CPU.SweepTerm + c.CPU.MarkTerm
		r.pauseMax = math.Max(r.pauseMax, c.Clock.SweepTerm+c.Clock.MarkTerm)
		r.phaseMax = math.Max(r.phaseMax, math.Max(c.Clock.SweepTerm, c.Clock.MarkTerm))
	}
	wall := endOf(last).Sub(endOf(first)).Seconds() * 1000
	r.gcCPU = (cpu + mark) / (wall * float64(last.Procs))
	r.gcCPUMark = mark / (wall * float64(last.Procs))
	r.sinceStart = last.Util
	r.liveMB = last.HeapLive
	if next, ok := byNum[hi+1]; ok {
		r.nextGoalMB = next.HeapGoal
	}
	r.byNumber = byNum
	return r
}

// maxPauseOf returns the longest per-cycle pause of cycles (hi-n, hi].
func (r ref) maxPauseOf(hi, n int) float64 {
	m := 0.0
	for k := hi - n + 1; k <= hi; k++ {
		if c, ok := r.byNumber[k]; ok {
			m = math.Max(m, c.Clock.SweepTerm+c.Clock.MarkTerm)
		}
	}
	return m
}
