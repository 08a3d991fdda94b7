package watch

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/live"
)

// sampleDir holds what the live package's test server served, three
// seconds apart, with its gctrace over the same time (see
// live/testdata/sample).
var sampleDir = filepath.Join("..", "live", "testdata", "sample")

func sampleSnapshot(t *testing.T, stage string, srcs ...live.Source) *live.Snapshot {
	t.Helper()
	s := live.NewSnapshot(time.Time{})
	for _, src := range srcs {
		name := filepath.Join(sampleDir, src.File(stage))
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

func sampleCycles(t *testing.T) map[int]gctrace.Cycle {
	t.Helper()
	f, err := os.Open(filepath.Join(sampleDir, "gctrace.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := gctrace.Parse(f, "gctrace.log", gctrace.Options{KeepCycles: true})
	if err != nil {
		t.Fatal(err)
	}
	byNum := map[int]gctrace.Cycle{}
	for _, s := range l.Segments {
		for _, c := range s.Cycles {
			byNum[c.Num] = c
		}
	}
	return byNum
}

// TestKPIsOfAgreesWithAgent holds the figures watch takes from a program's
// gctrace lines to those the runtime itself gave gcdoctor's agent over the
// same window: the same cycles, the GC CPU within half a percentage point
// (or 5%) of the band from the cycles' mark CPU alone to their mark and
// stop-the-world CPU, the live heap within the MiB gctrace rounds to. The
// runtime counts a pause from when every P has stopped, gctrace from when
// stopping began: on a loaded machine the two differ by that.
func TestKPIsOfAgreesWithAgent(t *testing.T) {
	a, b := sampleSnapshot(t, live.Start, live.Agent), sampleSnapshot(t, live.End, live.Agent)
	want, err := live.Between(a, b)
	if err != nil {
		t.Fatal(err)
	}
	byNum := sampleCycles(t)
	lo := int(*a.Agent.Metrics["/gc/cycles/total:gc-cycles"].Uint64)
	hi := int(*b.Agent.Metrics["/gc/cycles/total:gc-cycles"].Uint64)
	var window []gctrace.Cycle
	for n := lo + 1; n <= hi; n++ {
		c, ok := byNum[n]
		if !ok {
			t.Fatalf("gctrace.log has no cycle %d", n)
		}
		window = append(window, c)
	}
	prev := byNum[lo]
	got := kpisOf(window, &prev, b.Time.Sub(a.Time).Seconds(), cycleFigures{gogc: 100, limit: math.Inf(1), rss: math.NaN()})
	t.Logf("gctrace: %d cycles, GC CPU %.4f, live %.1f MiB, alloc %.0f MiB/s; agent: %d cycles, GC CPU %.4f, live %.1f MiB, alloc %.0f MiB/s",
		got.Cycles, got.GCCPU.Fraction, got.LiveHeapBytes/(1<<20), got.AllocBytesPerSecond/(1<<20),
		want.Cycles, want.GCCPU.Fraction, want.LiveHeapBytes/(1<<20), want.AllocBytesPerSecond/(1<<20))
	if got.Cycles != want.Cycles {
		t.Errorf("%d cycles, the agent counts %d", got.Cycles, want.Cycles)
	}
	mark := 0.0
	for _, c := range window {
		mark += c.CPU.Assist + c.CPU.Background
	}
	mark /= 1000 * got.WindowS * float64(got.GOMAXPROCS)
	tol := math.Max(0.005, 0.05*got.GCCPU.Fraction)
	if w := want.GCCPU.Fraction; !got.GCCPU.Exact || w < mark-tol || w > got.GCCPU.Fraction+tol {
		t.Errorf("GC CPU %.4f (exact %v, marking alone %.4f), the agent's %.4f", got.GCCPU.Fraction, got.GCCPU.Exact, mark, w)
	}
	if d := math.Abs(got.LiveHeapBytes-want.LiveHeapBytes) / (1 << 20); d > 1 {
		t.Errorf("live heap %.1f MiB, the agent's %.1f MiB", got.LiveHeapBytes/(1<<20), want.LiveHeapBytes/(1<<20))
	}
	// gctrace gives the heap in whole MiB, and its allocation is seen
	// from cycle to cycle: within 10% of the runtime's count.
	if r := got.AllocBytesPerSecond / want.AllocBytesPerSecond; !(r > 0.9 && r < 1.1) {
		t.Errorf("allocation %.0f MiB/s, the agent's %.0f MiB/s", got.AllocBytesPerSecond/(1<<20), want.AllocBytesPerSecond/(1<<20))
	}
	if got.GOMAXPROCS != want.GOMAXPROCS {
		t.Errorf("GOMAXPROCS %d, the agent's %d", got.GOMAXPROCS, want.GOMAXPROCS)
	}
}

func TestKPIsOfEdges(t *testing.T) {
	byNum := sampleCycles(t)
	first := byNum[1]
	for _, tc := range []struct {
		name   string
		cycles []gctrace.Cycle
		prev   *gctrace.Cycle
		check  func(t *testing.T, k *live.KPIs)
	}{
		{"no cycle", nil, nil, func(t *testing.T, k *live.KPIs) {
			if k.Cycles != 0 || k.GCCPU.Fraction != 0 || !k.GCCPU.Exact || !math.IsNaN(k.Pauses.MaxMS) || !math.IsNaN(k.HeapAllocBytes) {
				t.Errorf("%+v", k)
			}
		}},
		{"the first cycle of a program", []gctrace.Cycle{first}, nil, func(t *testing.T, k *live.KPIs) {
			// No cycle before it: its allocation is unknown.
			if k.Cycles != 1 || !math.IsNaN(k.AllocBytesPerSecond) || k.Pauses.MaxMS != first.PauseTotal() {
				t.Errorf("cycles %d alloc %v pause %v", k.Cycles, k.AllocBytesPerSecond, k.Pauses.MaxMS)
			}
		}},
		{"two cycles from the start", []gctrace.Cycle{first, byNum[2]}, nil, func(t *testing.T, k *live.KPIs) {
			// The second's allocation stands for both.
			want := 2 * float64(byNum[2].HeapEnd-first.HeapLive) * (1 << 20)
			if k.AllocBytes != want || k.Pauses.Count != 2 {
				t.Errorf("alloc %v, want %v; %d pauses", k.AllocBytes, want, k.Pauses.Count)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, kpisOf(tc.cycles, tc.prev, 1, cycleFigures{gogc: 100, limit: math.Inf(1), rss: math.NaN()}))
		})
	}
}
