package fleet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

// Options say which Prometheus to ask, about which services, over which
// window.
type Options struct {
	// Prometheus is the server's base URL, e.g. http://prometheus:9090.
	Prometheus string
	// Match narrows the services with label matchers, as in a PromQL
	// selector: `job=~"api.*",env="prod"` (braces optional). Empty means
	// every target that exports Go metrics.
	Match string
	// Range is the window the figures are averaged over, ending at End.
	Range time.Duration
	// End is when the window ends; zero means now.
	End time.Time
	// Budget is the memory each instance may use, bytes (a container's
	// limit), for the tuning advice; 0 when unknown (see Tune).
	Budget int64
	// MaxInstances bounds the instances analysed (DefaultMaxInstances when
	// 0); those past it, the least GC CPU first, are left out with a note.
	MaxInstances int
	// QueryTimeout bounds each query (DefaultQueryTimeout when 0) and
	// MaxResponseBytes each response (DefaultMaxResponseBytes when 0).
	QueryTimeout     time.Duration
	MaxResponseBytes int64
	// RoundTripper carries the requests; nil uses the client library's
	// default (with its dial and TLS timeouts).
	RoundTripper http.RoundTripper
	// Progress, when set, is told as each query finishes.
	Progress func(done, total int)
}

// MinRange and MaxRange bound Options.Range: a rate needs two scrapes,
// and a window longer than a month is rarely kept at full resolution.
const (
	MinRange = 10 * time.Second
	MaxRange = 31 * 24 * time.Hour
)

// Report is what Analyze found: the fleet's figures, each instance's and
// each job's, and how they were obtained.
type Report struct {
	Prometheus string
	Match      string
	Range      time.Duration
	End        time.Time
	// GCCores is the GC CPU of every instance analysed, in cores (CPU
	// seconds per second); GCCoresEstimated the part of it that is
	// estimated; ProcessCores the instances' whole CPU.
	GCCores, GCCoresEstimated, ProcessCores float64
	Queries                                 []Query
	// Instances are ranked by GC cores, the costliest first; Jobs too.
	Instances []*Instance
	Jobs      []*Job
	// Cut counts the instances left out past Options.MaxInstances.
	Cut int
	// Calibration is the GC cost per cycle and scanned MiB the estimates
	// use, and where it comes from.
	Calibration Calibration
	// Tuning is what the recommended setting of each job would save
	// across the fleet (see Tune).
	Tuning Savings
	// Drill holds the single-service diagnoses of the worst instances,
	// when asked for (Drill).
	Drill []*DrillResult
	// Notes are caveats on the report as a whole.
	Notes []string
}

// Instance is one Go process as Prometheus sees it (a job and instance
// label pair). A figure the metrics do not give is NaN, and Missing says
// why.
type Instance struct {
	Job, Instance string
	GoVersion     string // from go_info, "" when not exported

	// GCCores is the GC's CPU, idle marking excluded, in cores; exact
	// from the runtime's CPU classes, else an estimate (GCCoresEstimated)
	// with its likely range GCCoresLow–GCCoresHigh, made as GCCoresFrom
	// says.
	GCCores, GCCoresLow, GCCoresHigh float64
	GCCoresEstimated                 bool
	GCCoresFrom                      string
	// ProcessCores is the process's CPU (process_cpu_seconds_total).
	ProcessCores float64
	// GCShare is GCCores over ProcessCores, the share of the process's
	// CPU the GC took; GCAvailableShare is GCCores over GOMAXPROCS, the
	// share of the CPU available to the program that gc-cpu-high judges.
	GCShare, GCAvailableShare float64
	GCPerSecond               float64 // cycles/s
	PauseP99S, PauseMaxS      float64 // s; p99 from the pause histogram, max from the last pauses the summary keeps
	PauseSecsPerSec           float64 // time stopped per second of wall time
	AllocBytesPerSec          float64 // bytes/s
	// LiveBytes is the live heap after marking (mean over the window),
	// exact from go_gc_heap_live_bytes or estimated from the goal
	// (LiveEstimated); GoalBytes the heap goal's mean, GoalMaxBytes its
	// maximum.
	LiveBytes, GoalBytes, GoalMaxBytes float64
	LiveEstimated                      bool
	// GoalMedianBytes is the heap goal's median over the window.
	GoalMedianBytes float64
	// StacksBytes and GlobalsBytes are what the GC scans besides the heap
	// (the stacks in use when the scanned figure is not exported).
	StacksBytes, GlobalsBytes float64
	HeapInuseBytes            float64
	RSSMaxBytes               float64
	// GOGC is the GOGC in force (-1 for off), GOGCKnown whether it was
	// exported; MemoryLimit is GOMEMLIMIT in bytes, 0 when none is set;
	// GOMAXPROCS is 0 when not exported.
	GOGC        int
	GOGCKnown   bool
	MemoryLimit int64
	GOMAXPROCS  int
	Goroutines  float64
	// The live heap's trend over the window: a least-squares line's slope
	// (bytes/s), its values at the window's start and end, and how well it
	// fits (R², 0..1).
	LiveSlope, LiveStart, LiveEnd, LiveR2 float64
	// LiveToGoal is the median over the window of live heap ÷ heap goal;
	// MarkShare the share of the time the process ran (its CPU, up to
	// GOMAXPROCS cores) that the GC marked, at least: from the background
	// workers' CPU, which is 25% of the process's while it marks, and from
	// all the marking CPU.
	LiveToGoal, MarkShare float64
	// WindowS is the time the window covers for this instance: the range,
	// or less when the process started within it.
	WindowS float64

	// Missing says which series the instance lacked and what that left
	// estimated or unjudged.
	Missing  []string
	Findings []diagnose.Finding
	// Model is the pacer model of the instance, for Tune.
	Model *Model
	// gcCPUFraction reports that GCAvailableShare comes from
	// go_memstats_gc_cpu_fraction.
	gcCPUFraction bool
}

// Finding returns the instance's finding with the rule id.
func (in *Instance) Finding(id string) *diagnose.Finding {
	for i := range in.Findings {
		if in.Findings[i].ID == id {
			return &in.Findings[i]
		}
	}
	return nil
}

// Job is the instances of one job label, summed.
type Job struct {
	Name string
	// Instances counts the job's instances analysed, Estimated those whose
	// GC CPU is an estimate.
	Instances, Estimated  int
	GCCores, ProcessCores float64
	GCShare               float64 // GCCores over ProcessCores
	// Findings counts, per rule ID, the instances with that finding, the
	// most severe first.
	Findings []JobFinding
	// Tuning is the setting recommended for the job and what it would do.
	Tuning *JobTuning
}

// JobFinding is a rule that fired on some of a job's instances.
type JobFinding struct {
	ID        string
	Severity  diagnose.Severity
	Instances int
}

// Analyze queries the Prometheus server and judges every Go instance it
// finds. A query that fails leaves its figures missing, with a note;
// Analyze fails only when the server cannot be reached or no query
// succeeds, when the selector does not parse, or when no instance
// exports Go metrics.
func Analyze(ctx context.Context, o Options) (*Report, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	sel, err := selector(o.Match)
	if err != nil {
		return nil, err
	}
	a, err := newAPI(o.Prometheus, &o)
	if err != nil {
		return nil, err
	}
	r := &Report{Prometheus: o.Prometheus, Match: sel, Range: o.Range, End: o.End}
	step := subqueryStep(o.Range)
	answers := make([]*answer, len(queries))
	r.Queries = make([]Query, len(queries))
	var (
		mu    sync.Mutex
		done  int
		fatal error
		wg    sync.WaitGroup
	)
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, queryParallel)
	for i := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			q := &queries[i]
			ans, rec, err := run(qctx, a, q, q.text(sel, o.Range, step), o.End, o.QueryTimeout)
			mu.Lock()
			defer mu.Unlock()
			answers[i], r.Queries[i] = ans, rec
			if err != nil && fatal == nil {
				fatal = err
				cancel()
			}
			done++
			if o.Progress != nil {
				o.Progress(done, len(queries))
			}
		}()
	}
	wg.Wait()
	if fatal != nil {
		return nil, fmt.Errorf("%s: %w", o.Prometheus, fatal)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var failed []string
	for _, q := range r.Queries {
		if q.Err != "" {
			failed = append(failed, q.Name+": "+q.Err)
		}
	}
	if len(failed) == len(queries) {
		return nil, fmt.Errorf("%s: every query failed; the first: %s", o.Prometheus, failed[0])
	}
	for _, f := range failed {
		r.Notes = append(r.Notes, "query "+f+": its figures are missing")
	}
	set := newAnswers(answers)
	keys := set.instances()
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: %w", o.Prometheus, ErrNoInstances)
	}
	for _, k := range keys {
		r.Instances = append(r.Instances, set.instance(k, o.Range, o.End))
	}
	calibrate(r)
	for _, in := range r.Instances {
		estimate(in, &r.Calibration)
	}
	rank(r.Instances)
	if len(r.Instances) > o.MaxInstances {
		r.Cut = len(r.Instances) - o.MaxInstances
		r.Instances = r.Instances[:o.MaxInstances]
		noun := "instances were"
		if r.Cut == 1 {
			noun = "instance was"
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%d %s left out past the first %d (by GC CPU)", r.Cut, noun, o.MaxInstances))
	}
	for _, in := range r.Instances {
		in.Findings = judge(in, sel, o.Range, o.End)
		in.Model = fit(in)
	}
	r.Jobs = jobs(r.Instances)
	r.Tuning = Tune(r, o.Budget)
	for _, in := range r.Instances {
		r.GCCores += zeroNaN(in.GCCores)
		r.ProcessCores += zeroNaN(in.ProcessCores)
		if in.GCCoresEstimated {
			r.GCCoresEstimated += zeroNaN(in.GCCores)
		}
	}
	return r, nil
}

// ErrNoInstances is returned when no series of the selector carries the
// Go collector's metrics.
var ErrNoInstances = errors.New("no instance exports go_gc_duration_seconds, go_memstats_* or go_gc_* metrics for this selector and range")

func (o *Options) defaults() error {
	if err := o.connDefaults(); err != nil {
		return err
	}
	if o.Range < MinRange || o.Range > MaxRange {
		return fmt.Errorf("the range must be between %s and %s, not %s", promDuration(MinRange), promDuration(MaxRange), o.Range)
	}
	if o.End.IsZero() {
		o.End = time.Now()
	}
	if o.MaxInstances == 0 {
		o.MaxInstances = DefaultMaxInstances
	}
	if o.MaxInstances < 1 || o.MaxInstances > MaxInstancesLimit {
		return fmt.Errorf("the instance bound must be between 1 and %d", MaxInstancesLimit)
	}
	return nil
}

// connDefaults checks the server's URL and fills in the bounds of a
// request.
func (o *Options) connDefaults() error {
	u, err := url.Parse(o.Prometheus)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--prometheus %q: want a URL such as http://prometheus:9090", o.Prometheus)
	}
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = DefaultQueryTimeout
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	return nil
}

// rank orders instances by GC cores, the costliest first; unknown last,
// then by name so that the order is stable.
func rank(ins []*Instance) {
	slices.SortStableFunc(ins, func(a, b *Instance) int {
		if c := cmp.Compare(zeroNaN(b.GCCores), zeroNaN(a.GCCores)); c != 0 {
			return c
		}
		if c := strings.Compare(a.Job, b.Job); c != 0 {
			return c
		}
		return strings.Compare(a.Instance, b.Instance)
	})
}

// jobs sums the instances per job, the costliest job first.
func jobs(ins []*Instance) []*Job {
	byName := map[string]*Job{}
	var out []*Job
	counts := map[string]map[string]*JobFinding{}
	for _, in := range ins {
		j := byName[in.Job]
		if j == nil {
			j = &Job{Name: in.Job}
			byName[in.Job] = j
			counts[in.Job] = map[string]*JobFinding{}
			out = append(out, j)
		}
		j.Instances++
		if in.GCCoresEstimated {
			j.Estimated++
		}
		j.GCCores += zeroNaN(in.GCCores)
		j.ProcessCores += zeroNaN(in.ProcessCores)
		for _, f := range in.Findings {
			jf := counts[in.Job][f.ID]
			if jf == nil {
				jf = &JobFinding{ID: f.ID, Severity: f.Severity}
				counts[in.Job][f.ID] = jf
			}
			jf.Instances++
			jf.Severity = max(jf.Severity, f.Severity)
		}
	}
	for _, j := range out {
		j.GCShare = math.NaN()
		if j.ProcessCores > 0 {
			j.GCShare = j.GCCores / j.ProcessCores
		}
		for _, jf := range counts[j.Name] {
			j.Findings = append(j.Findings, *jf)
		}
		slices.SortFunc(j.Findings, func(a, b JobFinding) int {
			if c := cmp.Compare(b.Severity, a.Severity); c != 0 {
				return c
			}
			if c := cmp.Compare(b.Instances, a.Instances); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
	}
	slices.SortStableFunc(out, func(a, b *Job) int {
		if c := cmp.Compare(b.GCCores, a.GCCores); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

func zeroNaN(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// known reports whether v is a figure rather than NaN or an infinity.
func known(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// ParseEnd reads when a window ends: RFC 3339 or Unix seconds; "" is now
// (the zero time).
func ParseEnd(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 && f < 1e11 {
		return time.UnixMilli(int64(f * 1000)), nil
	}
	return time.Time{}, fmt.Errorf("%q: want RFC 3339 (2026-01-02T15:04:05Z) or Unix seconds", s)
}

// Severe returns how many instances have a finding at least as severe as
// limit, and the IDs of those findings, each once.
func (r *Report) Severe(limit diagnose.Severity) (instances int, ids []string) {
	seen := map[string]bool{}
	for _, in := range r.Instances {
		hit := false
		for _, fd := range in.Findings {
			if fd.Severity < limit {
				continue
			}
			hit = true
			if !seen[fd.ID] {
				seen[fd.ID] = true
				ids = append(ids, fd.ID)
			}
		}
		if hit {
			instances++
		}
	}
	return instances, ids
}

// Check says, in terms of the command's flags, what is wrong with the
// options a user gave.
func (o *Options) Check() error {
	switch {
	case o.MaxInstances < 1 || o.MaxInstances > MaxInstancesLimit:
		return fmt.Errorf("--max-instances must be between 1 and %d", MaxInstancesLimit)
	case o.QueryTimeout <= 0 || o.QueryTimeout > 10*time.Minute:
		return errors.New("--timeout must be positive and at most 10m")
	}
	return nil
}
