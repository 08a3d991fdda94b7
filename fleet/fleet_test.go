package fleet

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// TestThresholdsMatchRules holds the thresholds fleet applies to the
// single-process rules' own documentation: a rule whose threshold moves
// must move here too.
func TestThresholdsMatchRules(t *testing.T) {
	for id, phrases := range map[string][]string{
		"gc-cpu-high":           {"≥ 10%", "≥ 25%", "at\nleast 3 cycles"},
		"memlimit-death-spiral": {"At least 5 cycles", "≥ 95% of the", "≥ 50%"},
		"live-heap-growth":      {"at least 6 cycles", "10 s", "R² ≥ 0.7", "≥ 1.5×", "≥ 8 MB"},
		"rss-over-heap":         {"≥ 1.5×", "at least 64 MB more"},
		"stw-long":              {"≥ 10 ms", "≥ 100 ms", "≥ 5 ms"},
		"alloc-churn":           {"At least 10 cycles", "at least 5 per second", "64 MB/s", "at least 10 per second", "≥ 5%"},
		"gc-min-heap":           {"At least 10 cycles", "4 MB × GOGC/100", "5 such cycles per second"},
	} {
		r, ok := diagnose.Lookup(id)
		if !ok {
			t.Errorf("no rule %s", id)
			continue
		}
		for _, p := range phrases {
			if !strings.Contains(r.Detection, p) {
				t.Errorf("%s: its detection no longer says %q, which fleet's thresholds follow:\n%s", id, p, r.Detection)
			}
		}
	}
	if gcCPUWarn != 0.10 || gcCPUCritical != 0.25 || gcCPUMinCycles != 3 || spiralMinCycles != 5 || spiralAtGoal != 0.95 || spiralMarkShare != 0.5 ||
		growthMinCycles != 6 || growthMinSecs != 10 || growthR2 != 0.7 || growthFactor != 1.5 || growthMinBytes != 8<<20 ||
		rssFactor != 1.5 || rssMinBytes != 64<<20 || stwMaxS != 0.010 || stwCriticalS != 0.100 || stwP99S != 0.005 ||
		churnMinCycles != 10 || churnPerSecond != 5 || churnTurnover != 10 || churnMinBytesPerSec != 64<<20 || churnWarnShare != 0.05 ||
		minHeapMinCycles != 10 || minHeapPerSecond != 5 || minHeapBytes != 4<<20 || minHeapWarnShare != 0.05 {
		t.Error("a threshold differs from its rule's documentation above")
	}
}

// TestDefaultCalibration recomputes DefaultCalibration from the pacer's
// test logs.
func TestDefaultCalibration(t *testing.T) {
	files, err := filepath.Glob("../pacer/testdata/real/*.gogc100.*.log")
	if err != nil || len(files) == 0 {
		t.Fatalf("no pacer test logs: %v", err)
	}
	var ks []float64
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		l, err := gctrace.Parse(f, name, gctrace.Options{KeepCycles: true})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		m, err := pacer.Fit(l.Busiest(), pacer.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ks = append(ks, m.PacedCPUMS/float64(m.Cycles-m.Forced)/(m.LiveMeanMiB+m.StacksMiB+m.GlobalsMiB))
	}
	slices.Sort(ks)
	round := func(v float64) float64 { return math.Round(v*100) / 100 }
	got := [3]float64{round(ks[len(ks)/2]), round(ks[0]), round(ks[len(ks)-1])}
	want := [3]float64{DefaultCalibration.MS, DefaultCalibration.LowMS, DefaultCalibration.HighMS}
	if got != want {
		t.Errorf("the pacer's logs give %v ms per cycle and scanned MiB (median, min, max), DefaultCalibration says %v", got, want)
	}
}

func TestSelector(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{"", "", ""},
		{`{job="api"}`, `job="api"`, ""},
		{` job=~"api.*", env="prod", `, `job=~"api.*", env="prod"`, ""},
		{`{job="api"`, "", "without its }"},
		{"job=\"a\"}\n", "", "label matchers"},
	} {
		got, err := selector(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("selector(%q): error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("selector(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	q := query{expr: `max_over_time(go_gc_duration_seconds{%[1]s,quantile="1"}[%[2]s])`}
	if got := q.text("", time.Hour, time.Minute); got != `max_over_time(go_gc_duration_seconds{quantile="1"}[1h])` {
		t.Errorf("empty selector: %s", got)
	}
	if got := q.text(instanceSelector(`env="prod"`, "a\"b", "h:1"), time.Hour, time.Minute); got != `max_over_time(go_gc_duration_seconds{env="prod",job="a\"b",instance="h:1",quantile="1"}[1h])` {
		t.Errorf("instance selector: %s", got)
	}
}

func TestPorts(t *testing.T) {
	for _, tt := range []struct{ spec, scrape, want, err string }{
		{"", "http://10.0.0.1:9100/metrics", "http://10.0.0.1:9100", ""},
		{"6060", "https://h:9100/metrics", "https://h:6060", ""},
		{"9100=6060,9200=6061", "http://h:9200/metrics", "http://h:6061", ""},
		{"9100=6060", "http://h:8080/metrics", "http://h:8080", ""},
		{"9100=6060", "http://[::1]:9100/metrics", "http://[::1]:6060", ""},
		{"70000", "", "", "not a port"},
		{"9100:6060,x", "", "", "not a port"},
		{"9100=6060,x", "", "", "METRICS=PPROF"},
	} {
		pm, err := ParsePorts(tt.spec)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParsePorts(%q): error %v, want %q", tt.spec, err, tt.err)
			}
			continue
		}
		got, err := pm.pprofURL(tt.scrape)
		if err != nil || got != tt.want {
			t.Errorf("%q on %s = %q, %v; want %q", tt.spec, tt.scrape, got, err, tt.want)
		}
	}
}

// TestBounds checks that a response past the bound, a slow server and an
// error page each fail their query with a message, without failing the
// report while some queries answer.
func TestBounds(t *testing.T) {
	big := `{"status":"success","data":{"resultType":"vector","result":[` + strings.Repeat(`{"metric":{"job":"j","instance":"i"},"value":[1,"1"]},`, 2000) + `{"metric":{},"value":[1,"1"]}]}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.FormValue("query")
		switch {
		case strings.Contains(q, "go_info"):
			w.Write([]byte(big))
		case strings.Contains(q, "go_goroutines"):
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case strings.Contains(q, "gc_duration_seconds_count"):
			w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"j","instance":"i"},"value":[1,"2.5"]}]}}`))
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("overloaded\x1b[2J"))
		}
	}))
	defer srv.Close()
	r, err := Analyze(context.Background(), Options{Prometheus: srv.URL, Range: time.Hour, MaxResponseBytes: 64 << 10, QueryTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string]string{}
	for _, q := range r.Queries {
		errs[q.Name] = q.Err
	}
	if !strings.Contains(errs["go_version"], "larger than the limit") || !strings.Contains(errs["goroutines"], "deadline") || errs["gc_cycles_per_second"] != "" || errs["gc_cpu_cores"] == "" {
		t.Errorf("query errors: %q", errs)
	}
	if len(r.Instances) != 1 || r.Instances[0].GCPerSecond != 2.5 || len(r.Notes) != len(queries)-1 {
		t.Errorf("%d instances, notes %q", len(r.Instances), r.Notes)
	}
}

// fakeProm answers each query with the value of the first metric of
// values the query names, for every instance: enough to hold the reading
// of one kind of client to what it lacks.
func fakeProm(t *testing.T, values map[string]float64, instances ...string) *httptest.Server {
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	// Longer names first, so that go_gc_duration_seconds_count is not
	// taken for go_gc_duration_seconds.
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.FormValue("query")
		first, v := len(q), 0.0
		for _, n := range names {
			if i := strings.Index(q, n+"{"); i >= 0 && i < first {
				first, v = i, values[n]
			}
		}
		var res []string
		if first < len(q) {
			for _, in := range instances {
				res = append(res, `{"metric":{"job":"old","instance":"`+in+`","version":"go1.17.13"},"value":[1,"`+strconv.FormatFloat(v, 'g', -1, 64)+`"]}`)
			}
		}
		w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[` + strings.Join(res, ",") + `]}}`))
	}))
}

// TestOldClient reads an instance of an old client_golang: no runtime
// metrics, no GOGC, GOMEMLIMIT nor GOMAXPROCS, but the runtime's own
// GCCPUFraction.
func TestOldClient(t *testing.T) {
	srv := fakeProm(t, map[string]float64{
		"go_info": 1, "go_gc_duration_seconds_count": 20, "go_gc_duration_seconds_sum": 0.002, "go_gc_duration_seconds": 0.0004,
		"go_memstats_alloc_bytes_total": 400 << 20, "go_memstats_next_gc_bytes": 40 << 20, "go_memstats_heap_inuse_bytes": 30 << 20,
		"go_memstats_stack_inuse_bytes": 1 << 20, "go_memstats_gc_cpu_fraction": 0.18, "process_cpu_seconds_total": 1.5,
		"process_resident_memory_bytes": 80 << 20, "go_goroutines": 50,
	}, "10.0.0.9:8080")
	defer srv.Close()
	r, err := Analyze(context.Background(), Options{Prometheus: srv.URL, Range: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	in := r.Instances[0]
	if in.GOGC != 100 || in.GOGCKnown || in.GOMAXPROCS != 0 || in.GCAvailableShare != 0.18 || !in.GCCoresEstimated || !in.LiveEstimated {
		t.Errorf("GOGC %d (known %v), GOMAXPROCS %d, GC share %v, estimated %v/%v", in.GOGC, in.GOGCKnown, in.GOMAXPROCS, in.GCAvailableShare, in.GCCoresEstimated, in.LiveEstimated)
	}
	for _, want := range []string{"go_gc_gogc_percent", "go_sched_gomaxprocs_threads", "go_gc_heap_live_bytes", "go_cpu_classes_gc"} {
		if !slices.ContainsFunc(in.Missing, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("missing does not name %s: %q", want, in.Missing)
		}
	}
	f := in.Finding("gc-cpu-high")
	if f == nil || !strings.Contains(f.Message, "GOMAXPROCS unknown") || !strings.Contains(f.Message, "since the process started") {
		t.Errorf("gc-cpu-high on the runtime's own share: %+v", f)
	}
}

// TestMaxInstances keeps the costliest instances and says how many it
// left out.
func TestMaxInstances(t *testing.T) {
	srv := fakeProm(t, map[string]float64{"go_gc_duration_seconds_count": 2, "go_memstats_next_gc_bytes": 8 << 20}, "a:1", "b:1", "c:1")
	defer srv.Close()
	r, err := Analyze(context.Background(), Options{Prometheus: srv.URL, Range: time.Hour, MaxInstances: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Instances) != 2 || r.Cut != 1 || !slices.ContainsFunc(r.Notes, func(s string) bool { return strings.Contains(s, "1 instance was left out past the first 2") }) {
		t.Errorf("%d instances, %d cut, notes %q", len(r.Instances), r.Cut, r.Notes)
	}
	if _, err := Analyze(context.Background(), Options{Prometheus: srv.URL, Range: time.Hour, MaxInstances: MaxInstancesLimit + 1}); err == nil {
		t.Error("an instance bound past the limit was taken")
	}
}
