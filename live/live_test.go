package live_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/fleet"
	"github.com/gcdoctor/gcdoctor/live"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The files under testdata/sample were served by testdata/server
// (-pprof -metrics -expvar -agent, GODEBUG=gctrace=1) three seconds
// apart; gctrace.log is its standard error over the same time.
func sample(t *testing.T, stage string, srcs ...live.Source) *live.Snapshot {
	t.Helper()
	s := live.NewSnapshot(time.Time{})
	for _, src := range srcs {
		name := filepath.Join("testdata", "sample", src.File(stage))
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Add(src, data, name); err != nil {
			t.Fatal(err)
		}
	}
	if s.Agent != nil {
		s.Time = time.Unix(0, s.Agent.TimeUnixNano)
	} else if stage == live.End {
		s.Time = s.Time.Add(3 * time.Second)
	}
	return s
}

// describe prints the KPIs for a golden file.
func describe(k *live.KPIs) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("window_s %.3g sources %v go %s", k.WindowS, k.Sources, k.GoVersion)
	p("cycles %d forced %d per_s %.3g", k.Cycles, k.Forced, k.CyclesPerSecond)
	p("gc_cpu %.4g [%.4g %.4g] exact %v since_start %.4g: %s", k.GCCPU.Fraction, k.GCCPU.Low, k.GCCPU.High, k.GCCPU.Exact, k.GCCPU.SinceStart, k.GCCPU.From)
	p("pauses n %d max %.4g p50 %.4g p99 %.4g total %.4g per_cycle %v window %v: %s", k.Pauses.Count, k.Pauses.MaxMS, k.Pauses.P50MS, k.Pauses.P99MS, k.Pauses.TotalMS, k.Pauses.PerCycle, k.Pauses.Window, k.Pauses.From)
	p("alloc %.4g B, %.4g B/s", k.AllocBytes, k.AllocBytesPerSecond)
	p("heap %.4g goal %.4g live %.4g (estimated %v) stacks %.4g globals %.4g", k.HeapAllocBytes, k.HeapGoalBytes, k.LiveHeapBytes, k.LiveEstimated, k.StackBytes, k.GlobalsBytes)
	p("GOGC %d GOMEMLIMIT %.4g GOMAXPROCS %d RSS %.4g max %.4g sched_p99 %.4g goroutines %.4g", k.GOGC, k.MemoryLimitBytes, k.GOMAXPROCS, k.RSSBytes, k.MaxRSSBytes, k.SchedLatencyP99MS, k.Goroutines)
	for _, c := range k.Caveats {
		p("caveat: %s", c)
	}
	return b.String()
}

func TestSampleGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		srcs []live.Source
	}{
		{"all", live.Sources},
		{"memstats", []live.Source{live.MemStats}},
		{"metrics", []live.Source{live.Metrics}},
		{"expvar", []live.Source{live.Expvar}},
		{"agent", []live.Source{live.Agent}},
		{"memstats-metrics", []live.Source{live.MemStats, live.Metrics}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := live.Between(sample(t, live.Start, tc.srcs...), sample(t, live.End, tc.srcs...))
			if err != nil {
				t.Fatal(err)
			}
			got := describe(k)
			golden := filepath.Join("testdata", "golden", tc.name+".txt")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	ring := "[" + strings.TrimSpace(strings.Repeat("1 ", 256)) + "]"
	for _, tc := range []struct {
		name string
		src  live.Source
		data string
		want string
	}{
		{"no memstats", live.MemStats, "heap profile: 1: 2 [3: 4] @ heap/1\n", `x: no "# runtime.MemStats" section`},
		{"short ring", live.MemStats, "# runtime.MemStats\n# NumGC = 3\n# PauseNs = [1 2 3]\n", "x:3: PauseNs: 3 values, not 256"},
		{"bad count", live.MemStats, "# runtime.MemStats\n# HeapAlloc = lots\n", "x:2: HeapAlloc: "},
		{"no ring", live.MemStats, "# runtime.MemStats\n# NumGC = 3\n# PauseNs = " + ring + "\n", "lacks NumGC, PauseNs or PauseEnd"},
		{"metrics syntax", live.Metrics, "go_goroutines 1\ngo_threads{ 2\n", "x: text format parsing error in line 2"},
		{"metrics of another program", live.Metrics, "# TYPE up gauge\nup{job=\"a\"} 1\n", "no series of the Go or process collectors"},
		{"expvar json", live.Expvar, `{"memstats": [`, "x: unexpected end of JSON input"},
		{"expvar without memstats", live.Expvar, `{"cmdline": ["a"]}`, `no "memstats"`},
		{"agent empty", live.Agent, `{"go_version": "go1.26.0", "metrics": {}}`, "no runtime/metrics samples"},
		{"agent bad float", live.Agent, `{"metrics": {"/a:b": {"float64": "many"}}}`, `not a number: "many"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := live.NewSnapshot(time.Time{})
			err := s.Add(tc.src, []byte(tc.data), "x")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if len(s.Sources()) != 0 {
				t.Errorf("a source that failed is in the snapshot: %v", s.Sources())
			}
		})
	}
}

// ringSnapshot is a MemStats snapshot at NumGC n whose cycle k paused k µs.
func ringSnapshot(n uint32, at time.Time) *live.Snapshot {
	m := &live.MemStatsFigures{NumGC: n, GCCPUFraction: 0.1, LastGC: uint64(at.UnixNano())}
	for k := max(1, int(n)-255); k <= int(n); k++ {
		m.PauseNs[(k-1)%256] = uint64(k) * 1000
	}
	s := live.NewSnapshot(at)
	s.MemStats, s.MemStatsFrom = m, live.MemStats
	s.Raw[live.MemStats] = []byte("# runtime.MemStats\n")
	return s
}

func TestPauseRings(t *testing.T) {
	t0 := time.Unix(1000, 0)
	start, end := ringSnapshot(10, t0), ringSnapshot(600, t0.Add(10*time.Second))
	for _, tc := range []struct {
		name   string
		during []*live.Snapshot
		window bool
		count  int
		caveat string
	}{
		{"every cycle seen", []*live.Snapshot{ringSnapshot(400, t0.Add(6*time.Second)), ringSnapshot(200, t0.Add(3*time.Second))}, true, 590, ""},
		{"a gap", []*live.Snapshot{ringSnapshot(400, t0.Add(6*time.Second))}, false, 590 - 134, "the pauses of 134 of the window's 590 cycles were seen"},
		{"start and end only", nil, false, 256, "the pauses of 334 of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := live.Between(start, end, tc.during...)
			if err != nil {
				t.Fatal(err)
			}
			p := k.Pauses
			if k.Cycles != 590 || p.Window != tc.window || p.Count != tc.count || p.MaxMS != 0.6 || !p.PerCycle {
				t.Errorf("cycles %d, pauses %+v; want 590 cycles, %d pauses, the longest 0.6 ms, window %v", k.Cycles, p, tc.count, tc.window)
			}
			if tc.window && (p.P50MS != 0.305 || math.Abs(p.TotalMS-float64(11+600)*590/2/1000) > 1e-9) {
				t.Errorf("p50 %v total %v", p.P50MS, p.TotalMS)
			}
			if got := strings.Join(k.Caveats, "\n"); !strings.Contains(got, tc.caveat) || tc.caveat == "" && strings.Contains(got, "pauses") {
				t.Errorf("caveats %q, want %q", got, tc.caveat)
			}
		})
	}
}

func TestBetweenErrors(t *testing.T) {
	t0 := time.Unix(1000, 0)
	metricsOnly := live.NewSnapshot(t0.Add(time.Second))
	if err := metricsOnly.Add(live.Metrics, []byte("go_goroutines 3\n"), "m"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		start, end *live.Snapshot
		want       string
	}{
		{"restarted", ringSnapshot(500, t0), ringSnapshot(20, t0.Add(time.Second)), "restarted between the samples (NumGC went from 500 to 20)"},
		{"end first", ringSnapshot(5, t0.Add(time.Second)), ringSnapshot(20, t0), "is not after the start"},
		{"nothing in common", ringSnapshot(5, t0), metricsOnly, "no source in common"},
		{"one snapshot", ringSnapshot(5, t0), nil, "two snapshots are needed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := live.Between(tc.start, tc.end)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestCalibrationMatchesFleet: the live estimate of GC CPU and the fleet's
// use the same cost per cycle and scanned MiB.
func TestCalibrationMatchesFleet(t *testing.T) {
	c := fleet.DefaultCalibration
	if c.MS != live.CostMSPerCycleMiB || c.LowMS != live.CostLowMS || c.HighMS != live.CostHighMS {
		t.Errorf("fleet's calibration %v–%v–%v, live's %v–%v–%v", c.LowMS, c.MS, c.HighMS, live.CostLowMS, live.CostMSPerCycleMiB, live.CostHighMS)
	}
}

// TestBundleNames: a bundle knows the name of every file that stores
// samples.
func TestBundleNames(t *testing.T) {
	for _, f := range live.Files() {
		if !slices.Contains(bundle.LiveFiles, f) {
			t.Errorf("bundle.LiveFiles lacks %s", f)
		}
	}
	if len(live.Files()) != len(bundle.LiveFiles) {
		t.Errorf("live.Files() %v, bundle.LiveFiles %v", live.Files(), bundle.LiveFiles)
	}
}

// TestNoSourceOneLine: a service that answers nothing gets one line that
// says why once, with every path it was asked at.
func TestNoSourceOneLine(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	s, err := live.NewSampler(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, failed, err := s.Sample(context.Background())
	if err == nil || len(failed) != len(live.Sources) {
		t.Fatalf("err %v, failed %v", err, failed)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || strings.Count(msg, "404 Not Found") != 1 || strings.Count(msg, srv.URL) != 1 {
		t.Errorf("not one line saying it once: %q", msg)
	}
	for _, src := range live.Sources {
		if !strings.Contains(msg, "/"+src.Path()) {
			t.Errorf("%q does not name /%s", msg, src.Path())
		}
	}
}

// FuzzSnapshotAdd feeds what a hostile or broken service might serve to
// each source's reader: it is read or refused with an error naming the
// input, never a panic, and a refused answer leaves the snapshot as it was.
func FuzzSnapshotAdd(f *testing.F) {
	for _, src := range live.Sources {
		for _, stage := range []string{live.Start, live.End} {
			data, err := os.ReadFile(filepath.Join("testdata", "sample", src.File(stage)))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(src), data)
		}
	}
	f.Add("memstats", []byte("# runtime.MemStats\n# PauseNs = [1 2 3\n# NumGC = -1\n"))
	f.Add("metrics", []byte("go_gc_duration_seconds{quantile=\"x\"} NaN\n"))
	f.Fuzz(func(t *testing.T, src string, data []byte) {
		s := live.NewSnapshot(time.Unix(0, 0))
		err := s.Add(live.Source(src), data, "input")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "input") && !strings.Contains(err.Error(), "input") {
				t.Errorf("error does not name the input: %v", err)
			}
			if len(s.Raw) != 0 {
				t.Errorf("a refused answer was kept")
			}
			return
		}
		// What was read can be judged as a window of one sample to
		// itself one second later, without a panic.
		end := live.NewSnapshot(time.Unix(1, 0))
		if err := end.Add(live.Source(src), data, "input"); err != nil {
			t.Fatalf("read once, refused the second time: %v", err)
		}
		live.Between(s, end)
	})
}
