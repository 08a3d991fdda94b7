package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/fleet/fleettest"
)

// TestFleetCommand runs gcdoctor fleet against Debian's Prometheus
// scraping two example services, one of them under a job name that
// carries a terminal escape sequence, and drills into the costliest.
func TestFleetCommand(t *testing.T) {
	evil := "evil\x1b]0;pwned\x07\x1b[31m"
	srv := fleettest.Start(t, []fleettest.Service{
		{Job: "alloc", Mode: "alloc", RuntimeMetrics: true},
		{Job: evil, Mode: "healthy"},
	}, 12, 40*time.Second)

	out, errs, code := run(t, "", nil, "fleet", "--prometheus", srv.URL, "--range", "12s", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Fleet struct {
			GCCPUCoresTotal *float64 `json:"gc_cpu_cores_total"`
			QueriesSent     int      `json:"queries_sent"`
		} `json:"fleet"`
		Queries   []struct{ Name, PromQL string } `json:"queries"`
		Instances []struct {
			Instance      string   `json:"instance"`
			Job           string   `json:"job"`
			GCCPUCores    *float64 `json:"gc_cpu_cores"`
			GCPerSecond   *float64 `json:"gc_per_second"`
			HeapLiveBytes *float64 `json:"heap_live_bytes"`
			Findings      []struct {
				ID string `json:"id"`
			} `json:"findings"`
		} `json:"instances"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Fleet.GCCPUCoresTotal == nil || !(*doc.Fleet.GCCPUCoresTotal > 0) || len(doc.Queries) != doc.Fleet.QueriesSent || len(doc.Instances) != 2 {
		t.Fatalf("fleet %+v, %d queries, %d instances", doc.Fleet, len(doc.Queries), len(doc.Instances))
	}
	first := doc.Instances[0]
	if first.Job != "alloc" || first.GCCPUCores == nil || first.GCPerSecond == nil || first.HeapLiveBytes == nil || len(first.Findings) == 0 || first.Findings[0].ID == "" {
		t.Errorf("costliest instance: %+v", first)
	}
	// Every key is documented.
	md, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	var all any
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				if !strings.Contains(string(md), "`"+k+"`") && !strings.Contains(string(md), "."+k+"`") {
					t.Errorf("fleet JSON key %q is not documented in docs/json.md", k)
				}
				walk(v)
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	walk(all)
	if doc.Instances[1].Job != evil {
		t.Errorf("JSON keeps label values as they are: job %q, want %q", doc.Instances[1].Job, evil)
	}

	// Text, with the escape sequence made visible, and one drill-down
	// through the targets to the service's /debug/pprof.
	dir := filepath.Join(t.TempDir(), "drill")
	out, errs, code = run(t, "", nil, "fleet", "--prometheus", srv.URL, "--range", "12s", "--drill", "1", "--seconds", "0", "--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.ContainsAny(out+errs, "\x1b\x07") {
		t.Errorf("a control character from a label value reached the terminal:\n%q", out)
	}
	for _, want := range []string{"gcdoctor fleet: 2 instances in 2 jobs", "Costliest instances", "Drill-down", "alloc 127.0.0.1:", "gc-cpu-high"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "failed:") {
		t.Errorf("the drill-down failed:\n%s\n%s", out, errs)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 1 {
		t.Errorf("drill-down evidence in %s: %v %v", dir, ents, err)
	}

	// Usage errors name the flag.
	for _, args := range [][]string{
		{"fleet"},
		{"fleet", "--prometheus", srv.URL, "--range", "1s"},
		{"fleet", "--prometheus", srv.URL, "--top", "0"},
		{"fleet", "--prometheus", srv.URL, "--pprof-port", "9100=x"},
	} {
		if _, errs, code := run(t, "", nil, args...); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d: %s", args, code, ExitUsage, errs)
		}
	}
	// A selector the server cannot parse is one clear error.
	if _, errs, code := run(t, "", nil, "fleet", "--prometheus", srv.URL, "--match", `job=~"(`); code != ExitError || !strings.Contains(errs, "query") {
		t.Errorf("bad selector: exit %d: %s", code, errs)
	}
}
