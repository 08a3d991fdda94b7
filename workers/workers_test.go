package workers

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/exectrace"
)

const ms = time.Millisecond

func TestRecommend(t *testing.T) {
	for _, tc := range []struct {
		name  string
		t     Times
		procs int
		opts  Options
		want  int
		rng   [2]int
		says  string // part of an explanation
	}{
		{"cpu-bound", Times{Running: 100 * ms}, 4, Options{}, 4, [2]int{4, 8}, "CPU-bound"},
		{"cpu-bound oversubscribed", Times{Running: 100 * ms, Runnable: 5000 * ms, Workers: 1000}, 4, Options{}, 4, [2]int{4, 8}, "oversubscribed"},
		{"half waiting", Times{Running: 100 * ms, Syscall: 100 * ms}, 4, Options{}, 8, [2]int{8, 16}, "1.00 units"},
		{"mostly io", Times{Running: 10 * ms, IO: 990 * ms}, 2, Options{}, 200, [2]int{200, 400}, "99.00 units"},
		{"syscall and io add", Times{Running: 10 * ms, Syscall: 20 * ms, IO: 10 * ms}, 2, Options{}, 8, [2]int{8, 16}, "3.00 units"},
		// The article's example: scheduler wait does not count.
		{"runnable ignored", Times{Running: 10 * ms, Runnable: 300 * ms, Syscall: 10 * ms, Workers: 1000}, 8, Options{}, 16, [2]int{16, 32}, "left out"},
		{"starved", Times{Running: 10 * ms, Starved: 1000 * ms, Workers: 64}, 2, Options{}, 2, [2]int{2, 4}, "producer limits"},
		{"channel is work", Times{Running: 10 * ms, Starved: 30 * ms}, 2, Options{ChannelWaitIsWork: true}, 8, [2]int{8, 16}, "3.00 units"},
		{"contention ignored", Times{Running: 10 * ms, Contended: 50 * ms}, 2, Options{}, 2, [2]int{2, 4}, "locks"},
		{"utilization", Times{Running: 10 * ms, IO: 10 * ms}, 4, Options{Utilization: 0.5}, 4, [2]int{4, 8}, "U = 0.50"},
		{"bad utilization", Times{Running: 10 * ms}, 4, Options{Utilization: 7}, 4, [2]int{4, 8}, "CPU-bound"},
		{"rounds up", Times{Running: 30 * ms, IO: 10 * ms}, 2, Options{}, 3, [2]int{3, 6}, "2.7"},
		{"capped", Times{Running: time.Microsecond, IO: time.Hour}, 8, Options{Max: 500}, 500, [2]int{500, 500}, "Capped"},
		{"no running", Times{IO: 10 * ms}, 4, Options{}, 4, [2]int{4, 4}, "unknown"},
		{"no procs", Times{Running: 10 * ms, IO: 10 * ms}, 0, Options{}, 2, [2]int{2, 4}, "assumed 1"},
		{"too few workers", Times{Running: 10 * ms, IO: 90 * ms, Workers: 4}, 2, Options{}, 20, [2]int{20, 40}, "below"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Recommend(tc.t, tc.procs, tc.opts)
			if r.Workers != tc.want || r.Range != tc.rng {
				t.Errorf("got %d workers, range %v; want %d, %v", r.Workers, r.Range, tc.want, tc.rng)
			}
			text := strings.Join(r.Explanation, "\n")
			if !strings.Contains(text, tc.says) {
				t.Errorf("explanation does not say %q:\n%s", tc.says, text)
			}
			if r.Workers < 1 || r.Range[0] > r.Range[1] || r.Workers != r.Range[0] {
				t.Errorf("inconsistent %+v", r)
			}
		})
	}
}

// TestRecommendMonotone checks that more waiting never means fewer
// workers, and that runnable time never changes the count.
func TestRecommendMonotone(t *testing.T) {
	prev := 0
	for io := time.Duration(0); io <= 100*ms; io += ms {
		r := Recommend(Times{Running: 10 * ms, IO: io}, 4, Options{})
		q := Recommend(Times{Running: 10 * ms, IO: io, Runnable: 1000 * ms}, 4, Options{})
		if r.Workers < prev || q.Workers != r.Workers {
			t.Fatalf("io %v: %d workers (previous %d, with runnable time %d)", io, r.Workers, prev, q.Workers)
		}
		prev = r.Workers
	}
}

func TestFromGroup(t *testing.T) {
	g := &exectrace.Group{
		RunningMS: 1, RunnableMS: 2, SyscallMS: 3, PeakLive: 7,
		Blocked: exectrace.Blocked{ChanMS: 4, SelectMS: 5, SyncMS: 6, NetworkMS: 7, SleepMS: 8, GCMS: 9, OtherMS: 10},
	}
	got := FromGroup(g)
	want := Times{Running: 1 * ms, Runnable: 2 * ms, Syscall: 3 * ms, IO: 25 * ms, Starved: 9 * ms, Contended: 15 * ms, Workers: 7}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestSweep runs the I/O + CPU pipeline with pool sizes from 1 to 128,
// takes a trace of the oversized pool, and checks the recommendation from
// that trace does about as well as the best size measured. It compares
// wall times, which other work on the machine distorts (go test runs
// packages in parallel), so it runs only when asked, on a quiet machine:
//
//	GCDOCTOR_SWEEP=1 go test -run TestSweep -v ./workers
func TestSweep(t *testing.T) {
	if os.Getenv("GCDOCTOR_SWEEP") == "" {
		t.Skip("set GCDOCTOR_SWEEP=1 to time the pipeline at every pool size")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pipeline")
	if out, err := exec.Command(goCmd, "build", "-o", bin, "../exectrace/testdata/pipeline").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	run := func(workers int, trace string) time.Duration {
		args := []string{"-workers", strconv.Itoa(workers)}
		if trace != "" {
			args = append(args, "-trace", trace)
		}
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("pipeline -workers %d: %v", workers, err)
		}
		ns, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(string(out)), "wall "), 10, 64)
		if err != nil {
			t.Fatalf("pipeline output %q", out)
		}
		return time.Duration(ns)
	}
	const oversized = 128
	tracePath := filepath.Join(dir, "pipeline.trace")
	run(oversized, tracePath)
	res, err := exectrace.AnalyzeFile(tracePath, exectrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pool *exectrace.Group
	for i := range res.Groups {
		if g := &res.Groups[i]; g.Count == oversized && !g.Runtime {
			pool = g
		}
	}
	if pool == nil {
		t.Fatalf("no group of %d goroutines in the trace", oversized)
	}
	rec := Recommend(FromGroup(pool), res.Procs.GOMAXPROCS, Options{})

	// Every size, the recommended one included, runs once per round and
	// keeps its fastest run: other processes (such as tests of other
	// packages) slow down whole stretches of time, and interleaving the
	// sizes spreads that over all of them.
	sizes := []int{1, 2, 4, 8, 16, 32, 64, 128}
	walls := map[int]time.Duration{}
	for round := 0; round < 3; round++ {
		for _, n := range append(slices.Clone(sizes), rec.Workers) {
			if w := run(n, ""); walls[n] == 0 || w < walls[n] {
				walls[n] = w
			}
		}
	}
	fastest := time.Duration(math.MaxInt64)
	for _, n := range sizes {
		fastest = min(fastest, walls[n])
	}
	recWall := walls[rec.Workers]

	const slack = 1.15 // "about as well": within 15% of the fastest
	var table bytes.Buffer
	fmt.Fprintf(&table, "GOMAXPROCS %d; trace of %d workers: group %s running %.0f ms, runnable %.0f ms, syscall %.0f ms, blocked %.0f ms\n",
		res.Procs.GOMAXPROCS, oversized, pool.Name, pool.RunningMS, pool.RunnableMS, pool.SyscallMS, pool.Blocked.TotalMS())
	fmt.Fprintf(&table, "%8s %10s %8s\n", "workers", "wall", "vs best")
	var good []int
	for _, n := range sizes {
		mark := ""
		if float64(walls[n]) <= slack*float64(fastest) {
			good = append(good, n)
			mark = " best region"
		}
		fmt.Fprintf(&table, "%8d %10v %7.2f×%s\n", n, walls[n].Round(time.Millisecond), float64(walls[n])/float64(fastest), mark)
	}
	fmt.Fprintf(&table, "%8d %10v %7.2f× recommended (range %d–%d)\n", rec.Workers, recWall.Round(time.Millisecond), float64(recWall)/float64(fastest), rec.Range[0], rec.Range[1])
	t.Logf("sweep:\n%s%s", table.String(), strings.Join(rec.Explanation, "\n"))

	// The recommendation performs within the slack of the best size.
	if float64(recWall) > slack*float64(fastest) {
		t.Errorf("recommended %d workers took %v, more than %.0f%% over the best %v", rec.Workers, recWall, (slack-1)*100, fastest)
	}
	// And it lies in the best region of the sweep: above the largest size
	// that was too slow below it, and no higher than the largest good size.
	lo := 0
	for _, n := range sizes {
		if n < good[0] {
			lo = n
		}
	}
	if rec.Workers <= lo || rec.Workers > good[len(good)-1] {
		t.Errorf("recommended %d workers, outside the best region (%d, %d] of the sweep", rec.Workers, lo, good[len(good)-1])
	}
	if !slices.Contains(good, rec.Range[0]) && (rec.Range[0] <= lo || rec.Range[0] > good[len(good)-1]) {
		t.Errorf("range %v starts outside the best region", rec.Range)
	}
	_ = os.Remove(tracePath)
}
