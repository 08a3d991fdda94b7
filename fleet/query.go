package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// A query is one aggregated PromQL expression, written for any selector
// and range so that the same text serves the whole fleet (Analyze) and,
// narrowed to one instance, the evidence of a finding.
type query struct {
	name string
	// expr formats the expression: %[1]s is the selector's matchers
	// (without braces, possibly empty), %[2]s the range, %[3]s the
	// subquery step.
	expr string
	// label, when set, is a label whose value the query answers (go_info's
	// version) instead of a number.
	label string
}

// byInstance keeps one series per target whatever other labels a
// service's series carry (pod, namespace, a client_golang version).
const byInstance = "max by (job, instance) "

// The queries Analyze sends: a fixed number, each answering for every
// instance. Where client_golang exports a figure twice (the runtime/metrics
// name and the go_memstats_ one), the or takes the first per instance: the
// functions drop the metric name, so the two series have the same labels.
var queries = []query{
	{name: "go_version", expr: "max by (job, instance, version) (last_over_time(go_info{%[1]s}[%[2]s]))", label: "version"},
	{name: "gc_cycles_per_second", expr: byInstance + "(rate(go_gc_duration_seconds_count{%[1]s}[%[2]s]))"},
	{name: "gc_pause_seconds_per_second", expr: byInstance + "(rate(go_gc_duration_seconds_sum{%[1]s}[%[2]s]))"},
	{name: "gc_pause_max_seconds", expr: byInstance + `(max_over_time(go_gc_duration_seconds{%[1]s,quantile="1"}[%[2]s]))`},
	{name: "gc_pause_p99_seconds", expr: "histogram_quantile(0.99, sum by (job, instance, le) (rate(go_sched_pauses_total_gc_seconds_bucket{%[1]s}[%[2]s]))) or histogram_quantile(0.99, sum by (job, instance, le) (rate(go_gc_pauses_seconds_bucket{%[1]s}[%[2]s])))"},
	{name: "alloc_bytes_per_second", expr: byInstance + "(rate(go_memstats_alloc_bytes_total{%[1]s}[%[2]s]) or rate(go_gc_heap_allocs_bytes_total{%[1]s}[%[2]s]))"},
	{name: "gc_cpu_cores", expr: byInstance + "(rate(go_cpu_classes_gc_total_cpu_seconds_total{%[1]s}[%[2]s]) - rate(go_cpu_classes_gc_mark_idle_cpu_seconds_total{%[1]s}[%[2]s]))"},
	{name: "gc_mark_dedicated_cores", expr: byInstance + "(rate(go_cpu_classes_gc_mark_dedicated_cpu_seconds_total{%[1]s}[%[2]s]))"},
	{name: "gc_cpu_fraction", expr: byInstance + "(last_over_time(go_memstats_gc_cpu_fraction{%[1]s}[%[2]s]))"},
	{name: "process_cpu_cores", expr: byInstance + "(rate(process_cpu_seconds_total{%[1]s}[%[2]s]))"},
	{name: "process_start_seconds", expr: byInstance + "(last_over_time(process_start_time_seconds{%[1]s}[%[2]s]))"},
	{name: "gogc_percent", expr: byInstance + "(last_over_time(go_gc_gogc_percent{%[1]s}[%[2]s]))"},
	{name: "gomemlimit_bytes", expr: byInstance + "(last_over_time(go_gc_gomemlimit_bytes{%[1]s}[%[2]s]))"},
	{name: "gomaxprocs", expr: byInstance + "(last_over_time(go_sched_gomaxprocs_threads{%[1]s}[%[2]s]))"},
	{name: "goroutines", expr: byInstance + "(avg_over_time(go_goroutines{%[1]s}[%[2]s]))"},
	{name: "rss_max_bytes", expr: byInstance + "(max_over_time(process_resident_memory_bytes{%[1]s}[%[2]s]))"},
	{name: "heap_inuse_bytes", expr: byInstance + "(avg_over_time(go_memstats_heap_inuse_bytes{%[1]s}[%[2]s]))"},
	{name: "stacks_bytes", expr: byInstance + "(avg_over_time(go_gc_scan_stack_bytes{%[1]s}[%[2]s]) or avg_over_time(go_memstats_stack_inuse_bytes{%[1]s}[%[2]s]))"},
	{name: "globals_bytes", expr: byInstance + "(avg_over_time(go_gc_scan_globals_bytes{%[1]s}[%[2]s]))"},
	{name: "heap_live_bytes", expr: byInstance + "(avg_over_time(go_gc_heap_live_bytes{%[1]s}[%[2]s]))"},
	{name: "heap_goal_bytes", expr: byInstance + "(avg_over_time(go_gc_heap_goal_bytes{%[1]s}[%[2]s]) or avg_over_time(go_memstats_next_gc_bytes{%[1]s}[%[2]s]))"},
	{name: "heap_goal_max_bytes", expr: byInstance + "(max_over_time(go_gc_heap_goal_bytes{%[1]s}[%[2]s]) or max_over_time(go_memstats_next_gc_bytes{%[1]s}[%[2]s]))"},
	{name: "heap_goal_median_bytes", expr: byInstance + "(quantile_over_time(0.5, go_gc_heap_goal_bytes{%[1]s}[%[2]s]) or quantile_over_time(0.5, go_memstats_next_gc_bytes{%[1]s}[%[2]s]))"},
	{name: "live_to_goal_median", expr: byInstance + "(quantile_over_time(0.5, (go_gc_heap_live_bytes{%[1]s} / go_gc_heap_goal_bytes{%[1]s})[%[2]s:%[3]s]))"},
	// The live heap's trend: the runtime's own live heap, or else the
	// heap goal, which is proportional to it under a fixed GOGC.
	{name: "trend_slope_bytes_per_second", expr: byInstance + "(deriv(go_gc_heap_live_bytes{%[1]s}[%[2]s]) or deriv(go_memstats_next_gc_bytes{%[1]s}[%[2]s]))"},
	{name: "trend_end_bytes", expr: byInstance + "(predict_linear(go_gc_heap_live_bytes{%[1]s}[%[2]s], 0) or predict_linear(go_memstats_next_gc_bytes{%[1]s}[%[2]s], 0))"},
	{name: "trend_stddev_bytes", expr: byInstance + "(stddev_over_time(go_gc_heap_live_bytes{%[1]s}[%[2]s]) or stddev_over_time(go_memstats_next_gc_bytes{%[1]s}[%[2]s]))"},
	{name: "trend_samples", expr: byInstance + "(count_over_time(go_gc_heap_live_bytes{%[1]s}[%[2]s]) or count_over_time(go_memstats_next_gc_bytes{%[1]s}[%[2]s]))"},
}

// QueryCount is the number of PromQL queries Analyze sends, whatever the
// number of instances.
var QueryCount = len(queries)

// Query is one PromQL query Analyze sent and how it went.
type Query struct {
	Name   string  // what it measures, e.g. gc_cycles_per_second
	PromQL string  // the expression, as sent
	Series int     // series it returned
	Bytes  int64   // size of the response body
	Secs   float64 // how long it took, s
	// Warnings are the server's warnings; Err says why the query failed,
	// "" when it did not: the figures it would have given are then
	// missing, and the report says so.
	Warnings []string
	Err      string
}

// Limits on what Analyze asks of the server and takes from it.
const (
	// DefaultMaxInstances is how many instances Analyze keeps by default;
	// the rest are left out, and the report says how many.
	DefaultMaxInstances = 10000
	// MaxInstancesLimit bounds Options.MaxInstances.
	MaxInstancesLimit = 100000
	// DefaultQueryTimeout bounds each query, server and network included.
	DefaultQueryTimeout = 60 * time.Second
	// DefaultMaxResponseBytes bounds one response body: about 150 bytes a
	// series, so 64 MiB holds several hundred thousand.
	DefaultMaxResponseBytes = 64 << 20
	// queryParallel is how many queries are in flight at once.
	queryParallel = 4
)

// ErrResponseTooLarge is returned for a response body past the bound.
var ErrResponseTooLarge = errors.New("response larger than the limit")

// limitedTransport cuts response bodies at max bytes and counts them.
type limitedTransport struct {
	rt  http.RoundTripper
	max int64
}

func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.max {
		resp.Body.Close()
		return nil, fmt.Errorf("%w (%d MiB): %d bytes", ErrResponseTooLarge, t.max>>20, resp.ContentLength)
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.max, max: t.max, counter: counterFrom(req.Context())}
	return resp, nil
}

type limitedBody struct {
	rc        io.ReadCloser
	left, max int64
	counter   *int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%w (%d MiB)", ErrResponseTooLarge, b.max>>20)
		}
	}
	if int64(len(p)) > b.left {
		p = p[:max(b.left, 1)]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.counter != nil {
		*b.counter += int64(n)
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

type counterKey struct{}

func counterFrom(ctx context.Context) *int64 {
	c, _ := ctx.Value(counterKey{}).(*int64)
	return c
}

// newAPI returns the Prometheus API client for base, with the bounds of o.
func newAPI(base string, o *Options) (v1.API, error) {
	rt := o.RoundTripper
	if rt == nil {
		rt = api.DefaultRoundTripper
	}
	c, err := api.NewClient(api.Config{Address: base, RoundTripper: &limitedTransport{rt: rt, max: o.MaxResponseBytes}})
	if err != nil {
		return nil, fmt.Errorf("--prometheus %s: %v", base, err)
	}
	return v1.NewAPI(c), nil
}

// selector returns the matchers of a --match selector without its
// braces: `{job="api"}` and `job="api"` both give `job="api"`.
func selector(match string) (string, error) {
	s := strings.TrimSpace(match)
	if strings.HasPrefix(s, "{") {
		if !strings.HasSuffix(s, "}") {
			return "", fmt.Errorf("selector %q: a { without its }", match)
		}
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if strings.ContainsAny(s, "{}\n") {
		return "", fmt.Errorf("selector %q: want label matchers such as job=~\"api.*\",env=\"prod\"", match)
	}
	return strings.TrimSuffix(s, ","), nil
}

// instanceSelector narrows sel to one instance.
func instanceSelector(sel, job, instance string) string {
	m := "job=" + strconv.Quote(job) + ",instance=" + strconv.Quote(instance)
	if sel == "" {
		return m
	}
	return sel + "," + m
}

// promDuration formats d as PromQL writes durations: "1h", "90s".
func promDuration(d time.Duration) string {
	return model.Duration(d).String()
}

// RangeString formats a window as PromQL writes it: "1h", "1m30s".
func RangeString(d time.Duration) string { return promDuration(d) }

// text returns q's expression for a selector and window.
func (q *query) text(sel string, window, step time.Duration) string {
	expr := q.expr
	if sel == "" {
		// A matcher after the selector's needs no comma before it.
		expr = strings.ReplaceAll(expr, "{%[1]s,", "{")
	}
	return fmt.Sprintf(expr, sel, promDuration(window), promDuration(step))
}

// subqueryStep is the resolution of the subqueries: about 120 points over
// the window, and no finer than a second.
func subqueryStep(window time.Duration) time.Duration {
	return max((window / 120).Truncate(time.Second), time.Second)
}

// answer is a query's values per instance.
type answer struct {
	values map[key]float64
	labels map[key]string
}

// key names an instance.
type key struct{ job, instance string }

// run sends q and reads its vector. A bad_data error (the selector does
// not parse) is returned as an error: no other query would do better.
func run(ctx context.Context, a v1.API, q *query, text string, end time.Time, timeout time.Duration) (*answer, Query, error) {
	rec := Query{Name: q.name, PromQL: text}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var n int64
	ctx = context.WithValue(ctx, counterKey{}, &n)
	start := time.Now()
	v, warns, _, err := a.Query(ctx, text, end, v1.WithTimeout(timeout))
	rec.Secs = time.Since(start).Seconds()
	rec.Bytes = n
	rec.Warnings = append(rec.Warnings, warns...)
	if err != nil {
		var pe *v1.Error
		if errors.As(err, &pe) && pe.Type == v1.ErrBadData {
			return nil, rec, fmt.Errorf("query %s: %s", q.name, pe.Msg)
		}
		rec.Err = oneLine(err.Error())
		return nil, rec, nil
	}
	vec, ok := v.(model.Vector)
	if !ok {
		rec.Err = fmt.Sprintf("the server answered a %s, not an instant vector", v.Type())
		return nil, rec, nil
	}
	ans := &answer{values: make(map[key]float64, len(vec))}
	if q.label != "" {
		ans.labels = make(map[key]string, len(vec))
	}
	for _, s := range vec {
		k := key{job: string(s.Metric["job"]), instance: string(s.Metric["instance"])}
		ans.values[k] = float64(s.Value)
		if q.label != "" {
			ans.labels[k] = string(s.Metric[model.LabelName(q.label)])
		}
	}
	rec.Series = len(vec)
	return ans, rec, nil
}

// oneLine keeps the first line of a server's message, at most 300 bytes.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
