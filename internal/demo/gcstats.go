package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"runtime/metrics"
	"time"
)

// processStart approximates the runtime's start, the origin of the @time of
// gctrace lines: package initialisation runs a few milliseconds after it.
var processStart = time.Now()

// GCStats is the server's own GC accounting at one moment, from
// runtime/metrics. Two snapshots taken around a load run give exact counts
// for that window, which gctrace alone cannot when a run has only a cycle
// or two.
type GCStats struct {
	// UptimeS is seconds since the process started, on the same clock as
	// the @time of its gctrace lines (to within a few ms).
	UptimeS float64 `json:"uptime_s"`
	// Cycles counts completed GC cycles (/gc/cycles/total:gc-cycles).
	Cycles uint64 `json:"cycles"`
	// AllocBytes is the bytes allocated on the heap so far
	// (/gc/heap/allocs:bytes).
	AllocBytes uint64 `json:"alloc_bytes"`
	// GOMAXPROCS is the P count.
	GOMAXPROCS int `json:"gomaxprocs"`
}

var gcMetrics = []string{"/gc/cycles/total:gc-cycles", "/gc/heap/allocs:bytes"}

// ReadGCStats takes a snapshot of the calling process's GC accounting.
func ReadGCStats() GCStats {
	samples := make([]metrics.Sample, len(gcMetrics))
	for i, name := range gcMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	s := GCStats{UptimeS: time.Since(processStart).Seconds(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	if samples[0].Value.Kind() == metrics.KindUint64 {
		s.Cycles = samples[0].Value.Uint64()
	}
	if samples[1].Value.Kind() == metrics.KindUint64 {
		s.AllocBytes = samples[1].Value.Uint64()
	}
	return s
}

func gcStatsHandler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ReadGCStats())
}

// FetchGCStats asks a demo server at baseURL (a loopback http URL) for its
// GC accounting.
func FetchGCStats(ctx context.Context, baseURL string) (*GCStats, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("demo: %s is not a loopback address", u.Hostname())
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", baseURL+"/debug/gcstats", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("demo: %s/debug/gcstats: %s", baseURL, resp.Status)
	}
	var s GCStats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return nil, fmt.Errorf("demo: %s/debug/gcstats: %v", baseURL, err)
	}
	return &s, nil
}
