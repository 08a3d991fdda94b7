package fleet_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/fleet"
	"github.com/gcdoctor/gcdoctor/fleet/fleettest"
)

// fleetServices are the example services the real-Prometheus tests
// scrape: one allocation-heavy, one at its GOMEMLIMIT, one growing and
// two healthy, with the default collector on some and the runtime metrics
// on others.
var fleetServices = []fleettest.Service{
	{Job: "alloc", Mode: "alloc"},
	{Job: "memlimit", Mode: "memlimit", RuntimeMetrics: true},
	{Job: "growth", Mode: "growth"},
	{Job: "healthy", Mode: "healthy", RuntimeMetrics: true},
	{Job: "healthy", Mode: "healthy"},
}

// TestRealPrometheus runs the analysis against Debian's Prometheus
// scraping the example services, and holds each service to the finding
// its behaviour calls for.
func TestRealPrometheus(t *testing.T) {
	srv := fleettest.Start(t, fleetServices, 20, 45*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := fleet.Analyze(ctx, fleet.Options{Prometheus: srv.URL, Range: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Queries) != fleet.QueryCount {
		t.Errorf("%d queries sent, want %d", len(r.Queries), fleet.QueryCount)
	}
	for _, q := range r.Queries {
		if q.Err != "" {
			t.Errorf("query %s failed: %s", q.Name, q.Err)
		}
	}
	for _, in := range r.Instances {
		var ids []string
		for _, f := range in.Findings {
			ids = append(ids, f.ID+"/"+f.Severity.String())
		}
		t.Logf("%-9s %-16s GC %.3f cores (estimated %v) %.1f cycles/s live %.1f MiB, live/goal %.2f, marking %.2f, %v", in.Job, in.Instance, in.GCCores, in.GCCoresEstimated, in.GCPerSecond, in.LiveBytes/(1<<20), in.LiveToGoal, in.MarkShare, ids)
	}
	if len(r.Instances) != len(fleetServices) || len(r.Jobs) != 4 {
		t.Fatalf("%d instances in %d jobs, want %d in 4", len(r.Instances), len(r.Jobs), len(fleetServices))
	}
	byJob := map[string][]*fleet.Instance{}
	for _, in := range r.Instances {
		byJob[in.Job] = append(byJob[in.Job], in)
	}
	want := map[string]string{"alloc": "gc-cpu-high", "memlimit": "memlimit-death-spiral", "growth": "live-heap-growth"}
	for job, id := range want {
		if f := byJob[job][0].Finding(id); f == nil {
			t.Errorf("%s: no %s finding", job, id)
		} else if src := f.Evidence[0].Source; !strings.Contains(src, "[20s") || !strings.Contains(src, `instance="`+byJob[job][0].Instance+`"`) {
			t.Errorf("%s: %s's evidence does not name its PromQL and range: %s", job, id, src)
		}
	}
	for _, in := range byJob["healthy"] {
		for _, id := range []string{"gc-cpu-high", "memlimit-death-spiral", "live-heap-growth", "alloc-churn", "gc-min-heap"} {
			if in.Finding(id) != nil {
				t.Errorf("healthy %s: unexpected %s", in.Instance, id)
			}
		}
	}
	// The default collector's instances say what they lack.
	alloc := byJob["alloc"][0]
	if !alloc.GCCoresEstimated || !alloc.LiveEstimated || !slices.ContainsFunc(alloc.Missing, func(s string) bool { return strings.Contains(s, "go_cpu_classes_gc") }) {
		t.Errorf("alloc: GC CPU estimated %v, live heap estimated %v, missing %q", alloc.GCCoresEstimated, alloc.LiveEstimated, alloc.Missing)
	}
	if m := byJob["memlimit"][0]; m.GCCoresEstimated || m.LiveEstimated || m.MemoryLimit != 40<<20 || m.GOGC != -1 {
		t.Errorf("memlimit: estimated %v/%v, GOMEMLIMIT %d, GOGC %d", m.GCCoresEstimated, m.LiveEstimated, m.MemoryLimit, m.GOGC)
	}
	// The two services that burn their CPU on the GC rank first.
	top := []string{r.Instances[0].Job, r.Instances[1].Job}
	slices.Sort(top)
	if top[0] != "alloc" || top[1] != "memlimit" {
		t.Errorf("the two costliest instances are %v, want alloc and memlimit", top)
	}
	if r.Jobs[len(r.Jobs)-1].Name != "healthy" || r.Jobs[len(r.Jobs)-1].Instances != 2 {
		t.Errorf("the cheapest job is %s with %d instances, want healthy with 2", r.Jobs[len(r.Jobs)-1].Name, r.Jobs[len(r.Jobs)-1].Instances)
	}
	if !(r.GCCores > 0) || r.Tuning.Jobs == 0 || !(r.Tuning.Saved.Value > 0) {
		t.Errorf("fleet GC %.3f cores, tuning of %d jobs saves %v", r.GCCores, r.Tuning.Jobs, r.Tuning.Saved)
	}

	// Drill down into the two costliest, through the targets' addresses.
	var got []string
	res, err := fleet.Drill(ctx, r, fleet.DrillOptions{Top: 2, Parallel: 2, Timeout: 10 * time.Second, Dir: t.TempDir(),
		Diagnose: func(ctx context.Context, url, dir string) (*diagnose.Diagnosis, error) {
			req, _ := http.NewRequestWithContext(ctx, "GET", url+"/debug/pprof/", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				return nil, fmt.Errorf("%s", resp.Status)
			}
			return &diagnose.Diagnosis{}, nil
		}}, fleet.Options{Prometheus: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res {
		if d.Err != "" || d.Diagnosis == nil {
			t.Errorf("drill %s %s: %s", d.Job, d.Instance, d.Err)
		}
		got = append(got, d.URL)
	}
	for i, d := range res {
		if want := "http://" + r.Instances[i].Instance; d.URL != want {
			t.Errorf("drill %d: attached to %s, want %s", i, d.URL, want)
		}
	}
}
