package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/evidence"
	"github.com/gcdoctor/gcdoctor/live"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// sampleServer serves the live package's recorded samples: the start
// files at the first request of each, the end files after.
func sampleServer(t *testing.T, srcs ...live.Source) *httptest.Server {
	t.Helper()
	var calls = map[live.Source]*atomic.Int32{}
	mux := http.NewServeMux()
	for _, src := range srcs {
		calls[src] = new(atomic.Int32)
		path, _, _ := strings.Cut(src.Path(), "?")
		mux.HandleFunc("/"+path, func(w http.ResponseWriter, r *http.Request) {
			stage := live.End
			if calls[src].Add(1) == 1 {
				stage = live.Start
			}
			data, err := os.ReadFile(filepath.Join(sampleDir, src.File(stage)))
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			w.Write(data)
		})
	}
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// TestSessionURL watches a service that serves the samples, and checks
// the interval's figures are those live gives for the same two samples.
func TestSessionURL(t *testing.T) {
	srv := sampleServer(t, live.MemStats, live.Metrics)
	src, err := NewURL(srv.URL, MinInterval)
	if err != nil {
		t.Fatal(err)
	}
	var got *Frame
	if err := NewSession(src, MinInterval).Run(context.Background(), func(f *Frame) bool {
		got = f
		return f.Fresh
	}); err != nil {
		t.Fatal(err)
	}
	want, err := live.Between(sampleSnapshot(t, live.Start, live.MemStats, live.Metrics), sampleSnapshot(t, live.End, live.MemStats, live.Metrics))
	if err != nil {
		t.Fatal(err)
	}
	p := got.Point
	if got.Polls != 2 || len(got.History) != 1 || p.Cycles != want.Cycles || p.HeapGoalBytes != want.HeapGoalBytes || p.Goroutines != want.Goroutines {
		t.Errorf("polls %d history %d: cycles %d goal %v goroutines %v; want %d, %v, %v", got.Polls, len(got.History), p.Cycles, p.HeapGoalBytes, p.Goroutines, want.Cycles, want.HeapGoalBytes, want.Goroutines)
	}
	if strings.Join(got.Sources, ",") != "memstats,metrics" {
		t.Errorf("sources %v", got.Sources)
	}
}

// TestRecordURL records a watch as a bundle and reads it back as doctor
// does: the live figures of the whole watch are there.
func TestRecordURL(t *testing.T) {
	srv := sampleServer(t, live.MemStats, live.Metrics)
	src, err := NewURL(srv.URL, MinInterval)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "rec")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut bytes.Buffer
	lines := 0
	w := writerFunc(func(b []byte) (int, error) {
		out.Write(b)
		if lines++; lines == 3 {
			cancel()
		}
		return len(b), nil
	})
	if err := Watch(ctx, src, Config{Interval: MinInterval, Record: dir, JSONLines: true, Out: w, Err: &errOut, Tool: "gcdoctor"}); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		for _, k := range []string{"t", "gc_cycles", "gc_cpu_fraction", "heap_alloc_bytes", "heap_goal_bytes", "goroutines", "findings"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d has no %s: %s", i+1, k, line)
			}
		}
	}
	if want := "recorded to " + dir + "; diagnose it with: gcdoctor doctor " + dir + "\n"; errOut.String() != want {
		t.Errorf("said %q, want %q", errOut.String(), want)
	}
	set, err := evidence.Load(context.Background(), []string{dir}, evidence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := live.Between(sampleSnapshot(t, live.Start, live.MemStats, live.Metrics), sampleSnapshot(t, live.End, live.MemStats, live.Metrics))
	if err != nil {
		t.Fatal(err)
	}
	if set.Input.Live == nil || set.Input.Live.KPIs.Cycles != want.Cycles {
		t.Fatalf("the recording read back: %+v, notes %v", set.Input.Live.KPIs, set.Notes)
	}
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.Has(bundle.MetaFile) || !b.Has("memstats-during.txt") || b.Meta().GoVersion == "" {
		t.Errorf("bundle holds %v, Go %q", b.Names(), b.Meta().GoVersion)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// TestRecordRefusesUsedDir: a directory with files in it is the user's,
// and watch says so before it starts.
func TestRecordRefusesUsedDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := NewURL("127.0.0.1:1", MinInterval)
	if err != nil {
		t.Fatal(err)
	}
	err = Watch(context.Background(), src, Config{Interval: MinInterval, Record: dir, Out: new(bytes.Buffer), Err: new(bytes.Buffer)})
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("err %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(data) != "mine" {
		t.Error("the user's file changed")
	}
}

// scripted is a Source that gives a fixed series of intervals.
type scripted struct {
	ks []*live.KPIs
	i  int
}

func (s *scripted) Name() string      { return "localhost:6060" }
func (s *scripted) Sources() []string { return []string{"agent"} }
func (s *scripted) Record(*bundle.Writer, *bundle.Meta) error {
	return nil
}
func (s *scripted) Poll(ctx context.Context, span int) (interval, recent *live.KPIs, err error) {
	if s.i >= len(s.ks) {
		return nil, nil, ErrEnded
	}
	k := s.ks[s.i]
	s.i++
	return k, k, nil
}

// frames runs a session over a scripted series and returns its last frame,
// with its times made fixed.
func frames(t *testing.T, ks []*live.KPIs) *Frame {
	t.Helper()
	var last *Frame
	// A scripted source needs no pause between polls.
	s := &Session{src: &scripted{ks: ks}, interval: time.Millisecond, since: map[string]time.Time{}}
	if err := s.Run(context.Background(), func(f *Frame) bool {
		last = f
		return false
	}); err != nil && err != ErrEnded {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	last.Started = start
	for i := range last.History {
		last.History[i].T = start.Add(time.Duration(i+1) * time.Second)
	}
	last.Point = last.History[len(last.History)-1]
	for i := range last.Findings {
		last.Findings[i].Since = start.Add(2 * time.Second)
	}
	return last
}

// series makes n intervals of a service whose GC CPU climbs.
func series(t *testing.T, n int) []*live.KPIs {
	t.Helper()
	base, err := live.Between(sampleSnapshot(t, live.Start, live.Agent), sampleSnapshot(t, live.End, live.Agent))
	if err != nil {
		t.Fatal(err)
	}
	var ks []*live.KPIs
	for i := range n {
		k := *base
		k.WindowS = 1
		k.GCCPU.Fraction = 0.02 + 0.3*float64(i)/float64(n)
		k.GCCPU.Low, k.GCCPU.High = k.GCCPU.Fraction, k.GCCPU.Fraction
		k.HeapAllocBytes = base.HeapAllocBytes * (1 + 0.1*float64(i%5))
		ks = append(ks, &k)
	}
	return ks
}

func TestScreenGolden(t *testing.T) {
	f := frames(t, series(t, 30))
	if len(f.Findings) == 0 {
		t.Fatal("no finding on a service whose GC takes 30% of the CPU")
	}
	for _, tc := range []struct {
		name  string
		width int
		color bool
	}{
		{"screen-80", 80, false},
		{"screen-40", 40, false},
		{"screen-120-color", 120, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Screen(f, tc.width, 0, NewStyle(tc.color))
			golden(t, tc.name+".txt", got)
			if tc.color {
				return
			}
			for i, line := range strings.Split(got, "\n") {
				if n := utf8.RuneCountInString(line); n > tc.width {
					t.Errorf("line %d is %d columns wide, over %d: %q", i+1, n, tc.width, line)
				}
				if strings.ContainsRune(line, '\x1b') {
					t.Errorf("line %d holds an escape without colour: %q", i+1, line)
				}
			}
		})
	}
}

// TestScreenFitsHeight: a short terminal cuts the screen, the keys stay.
func TestScreenFitsHeight(t *testing.T) {
	f := frames(t, series(t, 30))
	f.Ended = false
	got := strings.Split(Screen(f, 80, 12, NewStyle(false)), "\n")
	if len(got) > 12 || got[len(got)-1] != "q quit" {
		t.Errorf("%d lines, last %q", len(got), got[len(got)-1])
	}
}

// TestScreenEscapes: what the program prints cannot act on the terminal.
func TestScreenEscapes(t *testing.T) {
	f := frames(t, series(t, 3))
	f.Output = "\x1b]0;pwned\a\x1b[2J"
	f.Name = "evil\x1b[31m:6060"
	f.Findings[0].Message = "\x1b[1;1H\u202e"
	if s := Screen(f, 80, 0, NewStyle(false)); strings.ContainsRune(s, '\x1b') || strings.ContainsRune(s, '\a') {
		t.Errorf("the screen holds control characters: %q", s)
	}
}

func TestPointJSON(t *testing.T) {
	f := frames(t, series(t, 2))
	p := f.Point
	p.MemoryLimitBytes, p.RSSBytes = math.Inf(1), math.NaN()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "point.json", string(data)+"\n")
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", name, got)
	}
}

// TestScreenSinceStart: the runtime's average since the start, all that
// MemStats alone give, is not shown as the interval's.
func TestScreenSinceStart(t *testing.T) {
	k, err := live.Between(sampleSnapshot(t, live.Start, live.MemStats), sampleSnapshot(t, live.End, live.MemStats))
	if err != nil {
		t.Fatal(err)
	}
	f := frames(t, []*live.KPIs{k})
	if !f.Point.GCCPUSinceStart {
		t.Fatalf("GC CPU from %q is not marked as the average since the start", k.GCCPU.From)
	}
	s := Screen(f, 80, 0, NewStyle(false))
	if want := pct(k.GCCPU.Fraction) + " avg"; !strings.Contains(s, want) || !strings.Contains(s, "avg: since the program started") {
		t.Errorf("no %q and its legend:\n%s", want, s)
	}
	if l := Line(f); !strings.Contains(l, "GC CPU "+pct(k.GCCPU.Fraction)+" avg,") {
		t.Errorf("line %q", l)
	}
}

// TestSessionRestart: a service whose counters go back restarted; the
// poll says so, and watching goes on from the new process.
func TestSessionRestart(t *testing.T) {
	stages := []string{live.End, live.Start, live.End}
	var n atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		data, err := os.ReadFile(filepath.Join(sampleDir, live.Metrics.File(stages[min(i, len(stages)-1)])))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Write(data)
	})
	mux.HandleFunc("/", http.NotFound)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	src, err := NewURL(srv.URL, MinInterval)
	if err != nil {
		t.Fatal(err)
	}
	var frames []Frame
	s := &Session{src: src, interval: time.Millisecond, since: map[string]time.Time{}}
	if err := s.Run(context.Background(), func(f *Frame) bool {
		frames = append(frames, *f)
		return len(frames) == 3
	}); err != nil {
		t.Fatal(err)
	}
	if len(frames) != 3 || !strings.Contains(frames[1].Err, "restarted") || frames[1].Fresh {
		t.Fatalf("second poll: err %q, fresh %v", frames[1].Err, frames[1].Fresh)
	}
	if last := frames[2]; !last.Fresh || last.Err != "" || last.Point.Cycles <= 0 {
		t.Errorf("after the restart: fresh %v, err %q, cycles %d", last.Fresh, last.Err, last.Point.Cycles)
	}
}
