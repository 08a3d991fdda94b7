package fleet_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/fleet/fleettest"
)

// BenchmarkFleetScale backfills 6 h of the Go collector's series for 100
// and 1,000 instances (promtool tsdb create-blocks-from openmetrics),
// serves them with Prometheus and times gcdoctor fleet on them, reporting
// its wall time, queries and peak RSS. It is run by hand, not by go test
// ./...:
//
//	GCDOCTOR_FLEET_SCALE=1 go test ./fleet -run '^$' -bench FleetScale -benchtime 1x -timeout 60m
//
// The instances are a mix of behaviours (docs/fleet.md, "Scale"): most
// healthy, some allocation-heavy, some growing, a few pinned at their
// GOMEMLIMIT; half export the runtime metrics, half only the defaults.
func BenchmarkFleetScale(b *testing.B) {
	if os.Getenv("GCDOCTOR_FLEET_SCALE") == "" {
		b.Skip("set GCDOCTOR_FLEET_SCALE=1 to backfill and serve a fleet (minutes, about 1 GB of disk)")
	}
	prom := fleettest.Binary()
	promtool, err := exec.LookPath("promtool")
	if prom == "" || err != nil {
		b.Skip("no prometheus and promtool on PATH (Debian: apt-get install prometheus)")
	}
	dir := b.TempDir()
	gcd := filepath.Join(dir, "gcdoctor")
	if out, err := exec.Command("go", "build", "-o", gcd, "github.com/gcdoctor/gcdoctor/cmd/gcdoctor").CombinedOutput(); err != nil {
		b.Fatalf("building gcdoctor: %v\n%s", err, out)
	}
	end := time.Now().Truncate(time.Minute)
	for _, n := range scaleSizes() {
		b.Run(fmt.Sprintf("instances=%d", n), func(b *testing.B) {
			data := filepath.Join(dir, fmt.Sprintf("data-%d", n))
			om := filepath.Join(dir, fmt.Sprintf("fleet-%d.om", n))
			start := time.Now()
			lines, err := writeFleet(om, n, end.Add(-6*time.Hour), end, time.Minute)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("%d instances: %d samples of OpenMetrics written in %s", n, lines, time.Since(start).Round(time.Second))
			start = time.Now()
			if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", om, data).CombinedOutput(); err != nil {
				b.Fatalf("promtool: %v\n%s", err, tail(out))
			}
			os.Remove(om)
			b.Logf("backfilled in %s", time.Since(start).Round(time.Second))
			url := serve(b, prom, dir, data)
			for _, rng := range []string{"1h", "6h"} {
				var wall time.Duration
				var rss int64
				var doc scaleDoc
				for i := 0; i < b.N; i++ {
					wall, rss, doc = runFleet(b, gcd, url, rng, end)
				}
				b.ReportMetric(wall.Seconds(), "s/report-"+rng)
				b.ReportMetric(float64(rss)/(1<<20), "MiB-peak-RSS-"+rng)
				b.ReportMetric(float64(doc.Fleet.QueriesSent), "queries")
				b.Logf("range %s: %s, %d queries (%d failed), %d KiB of responses, peak RSS %d MiB, %d instances, %.2f GC cores",
					rng, wall.Round(time.Millisecond), doc.Fleet.QueriesSent, doc.Fleet.QueriesFailed, doc.Fleet.ResponseBytes>>10, rss>>20, doc.Fleet.Instances, doc.Fleet.GCCores)
				slices.SortFunc(doc.Queries, func(a, b struct {
					Name    string  `json:"name"`
					Seconds float64 `json:"seconds"`
				}) int {
					return cmp.Compare(b.Seconds, a.Seconds)
				})
				for _, q := range doc.Queries[:min(3, len(doc.Queries))] {
					b.Logf("    slowest: %s %.2f s", q.Name, q.Seconds)
				}
				if doc.Fleet.Instances != n {
					b.Errorf("range %s: %d instances analysed, want %d", rng, doc.Fleet.Instances, n)
				}
			}
		})
	}
}

type scaleDoc struct {
	Queries []struct {
		Name    string  `json:"name"`
		Seconds float64 `json:"seconds"`
	} `json:"queries"`
	Fleet struct {
		Instances     int     `json:"instances"`
		QueriesSent   int     `json:"queries_sent"`
		QueriesFailed int     `json:"queries_failed"`
		ResponseBytes int64   `json:"response_bytes"`
		GCCores       float64 `json:"gc_cpu_cores_total"`
	} `json:"fleet"`
}

// runFleet runs gcdoctor fleet once and returns its wall time, its peak
// RSS and its JSON.
func runFleet(b *testing.B, gcd, url, rng string, end time.Time) (time.Duration, int64, scaleDoc) {
	cmd := exec.Command(gcd, "fleet", "--prometheus", url, "--range", rng, "--end", strconv.FormatInt(end.Unix(), 10), "--json")
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("gcdoctor fleet: %v", err)
	}
	var doc scaleDoc
	if err := json.Unmarshal(out, &doc); err != nil {
		b.Fatal(err)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var rss int64
	if ru != nil {
		rss = ru.Maxrss << 10 // KiB on Linux
	}
	return wall, rss, doc
}

// serve starts Prometheus on the backfilled blocks and waits until it
// answers.
func serve(b *testing.B, prom, dir, data string) string {
	conf := filepath.Join(dir, "empty.yml")
	if err := os.WriteFile(conf, []byte("global:\n  scrape_interval: 1m\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, prom, "--config.file="+conf, "--storage.tsdb.path="+data, "--web.listen-address="+addr, "--log.level=warn")
	if err := cmd.Start(); err != nil {
		cancel()
		b.Fatal(err)
	}
	b.Cleanup(func() { cancel(); cmd.Wait() })
	url := "http://" + addr
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c := http.Client{Timeout: 2 * time.Second}
		if resp, err := c.Get(url + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			b.Fatal("Prometheus did not become ready in 2 minutes")
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

// kind is an instance's behaviour in the synthetic fleet.
type kind int

const (
	healthy kind = iota
	allocHeavy
	growing
	pinned
)

// synthInstance is one instance's parameters.
type synthInstance struct {
	job, instance string
	kind          kind
	runtime       bool    // exports the runtime metrics
	procs         int     // GOMAXPROCS
	liveMiB       float64 // live heap at the start
	growMiBPerS   float64
	allocMiBPerS  float64
	gcShare       float64 // GC CPU as a share of GOMAXPROCS
	limit         float64 // GOMEMLIMIT bytes, 0 none
}

// fleetOf draws n instances in n/10 jobs: 70% healthy, 15% allocation-
// heavy, 10% growing, 5% pinned at GOMEMLIMIT; a job's instances share
// its behaviour, as replicas do.
func fleetOf(n int) []synthInstance {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	var out []synthInstance
	jobs := max(n/10, 1)
	for j := 0; j < jobs; j++ {
		k := healthy
		switch p := r.Float64(); {
		case p < 0.05:
			k = pinned
		case p < 0.15:
			k = growing
		case p < 0.30:
			k = allocHeavy
		}
		for i := 0; i < n/jobs; i++ {
			s := synthInstance{job: fmt.Sprintf("svc-%03d", j), instance: fmt.Sprintf("10.%d.%d.%d:8080", j/250, j%250, i+10),
				kind: k, runtime: (j+i)%2 == 0, procs: []int{2, 4, 8}[r.IntN(3)]}
			s.liveMiB = 20 + r.Float64()*400
			switch k {
			case healthy:
				s.allocMiBPerS, s.gcShare = 2+r.Float64()*20, 0.005+r.Float64()*0.03
			case allocHeavy:
				s.allocMiBPerS, s.gcShare = 300+r.Float64()*900, 0.12+r.Float64()*0.2
				s.liveMiB = 8 + r.Float64()*20
			case growing:
				s.allocMiBPerS, s.gcShare, s.growMiBPerS = 10+r.Float64()*30, 0.02+r.Float64()*0.03, 0.005+r.Float64()*0.02
			case pinned:
				s.allocMiBPerS, s.gcShare = 100+r.Float64()*200, 0.3+r.Float64()*0.2
				s.limit = s.liveMiB * 1.02 * (1 << 20)
			}
			out = append(out, s)
		}
	}
	return out
}

// writeFleet writes the instances' series from start to end every step
// as OpenMetrics, one family at a time as the format requires, and
// returns the samples written.
func writeFleet(path string, n int, start, end time.Time, step time.Duration) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	ins := fleetOf(n)
	steps := int(end.Sub(start) / step)
	samples := 0
	const mib = 1 << 20
	type series struct {
		name, extra string
		runtime     bool // only on instances with the runtime metrics
		value       func(s *synthInstance, t float64) float64
	}
	live := func(s *synthInstance, t float64) float64 { return (s.liveMiB + s.growMiBPerS*t) * mib }
	goal := func(s *synthInstance, t float64) float64 {
		g := live(s, t) * 2
		if s.limit > 0 {
			g = math.Min(g, s.limit)
		}
		return math.Max(g, live(s, t))
	}
	cycles := func(s *synthInstance, t float64) float64 {
		return s.allocMiBPerS * mib / math.Max(goal(s, t)-live(s, t), 0.02*live(s, t))
	}
	gcCores := func(s *synthInstance) float64 { return s.gcShare * float64(s.procs) }
	procCores := func(s *synthInstance) float64 { return math.Min(gcCores(s)*4+0.2, float64(s.procs)) }
	bucketLE := []string{"6.4e-06", "8.192e-05", "0.000917504", "0.01048576", "0.117440512", "+Inf"}
	bucketShare := []float64{0.2, 0.7, 0.97, 0.999, 1, 1}
	fams := []series{
		{name: "go_info", extra: `,version="go1.26.8"`, value: func(*synthInstance, float64) float64 { return 1 }},
		{name: "go_gc_duration_seconds_count", value: func(s *synthInstance, t float64) float64 { return cycles(s, 0) * t }},
		{name: "go_gc_duration_seconds_sum", value: func(s *synthInstance, t float64) float64 { return cycles(s, 0) * t * 0.0002 }},
		{name: "go_gc_duration_seconds", extra: `,quantile="0.5"`, value: func(*synthInstance, float64) float64 { return 0.00012 }},
		{name: "go_gc_duration_seconds", extra: `,quantile="1"`, value: func(s *synthInstance, t float64) float64 { return 0.0004 + 0.0001*math.Sin(t) }},
		{name: "go_memstats_alloc_bytes_total", value: func(s *synthInstance, t float64) float64 { return s.allocMiBPerS * mib * t }},
		{name: "go_memstats_next_gc_bytes", value: goal},
		{name: "go_memstats_heap_inuse_bytes", value: func(s *synthInstance, t float64) float64 { return goal(s, t) * 0.8 }},
		{name: "go_memstats_stack_inuse_bytes", value: func(*synthInstance, float64) float64 { return 2 * mib }},
		{name: "go_gc_gogc_percent", value: func(*synthInstance, float64) float64 { return 100 }},
		{name: "go_gc_gomemlimit_bytes", value: func(s *synthInstance, _ float64) float64 {
			if s.limit > 0 {
				return s.limit
			}
			return math.MaxInt64
		}},
		{name: "go_sched_gomaxprocs_threads", value: func(s *synthInstance, _ float64) float64 { return float64(s.procs) }},
		{name: "go_goroutines", value: func(s *synthInstance, t float64) float64 { return 200 + 20*math.Sin(t/600) }},
		{name: "process_cpu_seconds_total", value: func(s *synthInstance, t float64) float64 { return procCores(s) * t }},
		{name: "process_resident_memory_bytes", value: func(s *synthInstance, t float64) float64 { return goal(s, t)*1.1 + 30*mib }},
		{name: "process_start_time_seconds", value: func(*synthInstance, float64) float64 { return float64(start.Unix() - 86400) }},
		{name: "go_cpu_classes_gc_total_cpu_seconds_total", runtime: true, value: func(s *synthInstance, t float64) float64 { return gcCores(s) * 1.05 * t }},
		{name: "go_cpu_classes_gc_mark_idle_cpu_seconds_total", runtime: true, value: func(s *synthInstance, t float64) float64 { return gcCores(s) * 0.05 * t }},
		{name: "go_cpu_classes_gc_mark_dedicated_cpu_seconds_total", runtime: true, value: func(s *synthInstance, t float64) float64 { return gcCores(s) * 0.6 * t }},
		{name: "go_gc_heap_live_bytes", runtime: true, value: live},
		{name: "go_gc_heap_goal_bytes", runtime: true, value: goal},
		{name: "go_gc_scan_stack_bytes", runtime: true, value: func(*synthInstance, float64) float64 { return 0.5 * mib }},
		{name: "go_gc_scan_globals_bytes", runtime: true, value: func(*synthInstance, float64) float64 { return 0.3 * mib }},
	}
	for i, le := range bucketLE {
		share := bucketShare[i]
		fams = append(fams, series{name: "go_sched_pauses_total_gc_seconds_bucket", extra: `,le="` + le + `"`, runtime: true,
			value: func(s *synthInstance, t float64) float64 { return math.Floor(2 * cycles(s, 0) * t * share) }})
	}
	prev := ""
	for _, fam := range fams {
		if fam.name != prev {
			fmt.Fprintf(w, "# TYPE %s unknown\n", fam.name)
			prev = fam.name
		}
		for k := range ins {
			s := &ins[k]
			if fam.runtime && !s.runtime {
				continue
			}
			labels := fmt.Sprintf(`{job="%s",instance="%s"%s}`, s.job, s.instance, fam.extra)
			for i := 0; i <= steps; i++ {
				t := float64(i) * step.Seconds()
				v := fam.value(s, t)
				fmt.Fprintf(w, "%s%s %s %d\n", fam.name, labels, strconv.FormatFloat(v, 'g', 10, 64), start.Unix()+int64(t))
				samples++
			}
		}
	}
	fmt.Fprintln(w, "# EOF")
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return samples, f.Close()
}

// scaleSizes are the fleet sizes measured: 100 and 1,000 instances, or
// those of $GCDOCTOR_FLEET_SCALE when it lists them ("100,1000,5000").
func scaleSizes() []int {
	var out []int
	for _, f := range strings.Split(os.Getenv("GCDOCTOR_FLEET_SCALE"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n >= 10 && n <= 10000 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return []int{100, 1000}
	}
	return out
}
