package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/model"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

// DrillOptions say how to diagnose the worst instances one by one.
type DrillOptions struct {
	// Top is how many of the costliest instances to diagnose.
	Top int
	// Ports maps a metrics port to the port that serves /debug/pprof (see
	// ParsePorts); nil keeps the metrics port.
	Ports *PortMap
	// Parallel bounds the diagnoses run at once; Timeout bounds each.
	Parallel int
	Timeout  time.Duration
	// Diagnose collects the evidence of the service at url into dir and
	// diagnoses it (gcdoctor doctor URL does the same).
	Diagnose func(ctx context.Context, url, dir string) (*diagnose.Diagnosis, error)
	// Dir is where each instance's evidence goes, one directory each.
	Dir string
	// Progress, when set, is told as each diagnosis starts and ends.
	Progress func(done, total int, current string)
}

// Bounds on a drill-down.
const (
	MaxDrill         = 100
	MaxDrillParallel = 16
)

// DrillResult is the single-service diagnosis of one instance.
type DrillResult struct {
	Job, Instance string
	URL           string // what was attached to; "" when no target matched
	Dir           string // the evidence bundle
	Diagnosis     *diagnose.Diagnosis
	Secs          float64
	Err           string // why it failed; the others go on
}

// PortMap turns a metrics port into the pprof port.
type PortMap struct {
	all int         // every port to this one, 0 when unset
	by  map[int]int // metrics port → pprof port
}

// ParsePorts reads a port mapping: "6060" sends every instance's pprof
// requests to port 6060, "9100=6060,9200=6061" maps each metrics port
// listed, and keeps the others.
func ParsePorts(s string) (*PortMap, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	pm := &PortMap{by: map[int]int{}}
	port := func(p string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > 65535 {
			return 0, fmt.Errorf("port mapping %q: %q is not a port", s, p)
		}
		return n, nil
	}
	if !strings.Contains(s, "=") {
		n, err := port(s)
		pm.all = n
		return pm, err
	}
	for _, part := range strings.Split(s, ",") {
		from, to, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("port mapping %q: want METRICS=PPROF pairs, such as 9100=6060", s)
		}
		f, err := port(from)
		if err != nil {
			return nil, err
		}
		t, err := port(to)
		if err != nil {
			return nil, err
		}
		pm.by[f] = t
	}
	return pm, nil
}

// pprofURL returns the base URL of the pprof endpoints for a scrape URL.
func (pm *PortMap) pprofURL(scrape string) (string, error) {
	u, err := url.Parse(scrape)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("scrape URL %q cannot be parsed", scrape)
	}
	host, portS, err := net.SplitHostPort(u.Host)
	if err != nil {
		host, portS = u.Host, ""
	}
	if pm != nil {
		p, _ := strconv.Atoi(portS)
		if pm.all != 0 {
			portS = strconv.Itoa(pm.all)
		} else if to, ok := pm.by[p]; ok {
			portS = strconv.Itoa(to)
		}
	}
	if portS != "" {
		host = net.JoinHostPort(host, portS)
	}
	return (&url.URL{Scheme: u.Scheme, Host: host}).String(), nil
}

// Drill diagnoses the o.Top costliest instances of r: it finds their
// scrape addresses through the server's /api/v1/targets, maps the port
// and runs o.Diagnose on each, at most o.Parallel at once and each
// within o.Timeout. An instance that fails is recorded with its error;
// Drill fails only when the targets cannot be read.
func Drill(ctx context.Context, r *Report, o DrillOptions, conn Options) ([]*DrillResult, error) {
	if o.Top <= 0 || len(r.Instances) == 0 {
		return nil, nil
	}
	if o.Top > MaxDrill || o.Parallel < 1 || o.Parallel > MaxDrillParallel || o.Timeout <= 0 || o.Diagnose == nil {
		return nil, errors.New("fleet: drill-down options out of bounds")
	}
	if err := conn.connDefaults(); err != nil {
		return nil, err
	}
	a, err := newAPI(conn.Prometheus, &conn)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, conn.QueryTimeout)
	defer cancel()
	ts, err := a.Targets(tctx)
	if err != nil {
		return nil, fmt.Errorf("%s/api/v1/targets: %v", conn.Prometheus, oneLine(err.Error()))
	}
	scrape := map[key]string{}
	for _, t := range ts.Active {
		k := key{job: string(t.Labels[model.JobLabel]), instance: string(t.Labels[model.InstanceLabel])}
		if _, ok := scrape[k]; !ok {
			scrape[k] = t.ScrapeURL
		}
	}
	worst := r.Instances[:min(o.Top, len(r.Instances))]
	out := make([]*DrillResult, len(worst))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	sem := make(chan struct{}, o.Parallel)
	for i, in := range worst {
		res := &DrillResult{Job: in.Job, Instance: in.Instance}
		out[i] = res
		s, ok := scrape[key{in.Job, in.Instance}]
		if !ok {
			res.Err = "no active target with this job and instance in /api/v1/targets"
			continue
		}
		u, err := o.Ports.pprofURL(s)
		if err != nil {
			res.Err = err.Error()
			continue
		}
		res.URL = u
		res.Dir = filepath.Join(o.Dir, fmt.Sprintf("%02d-%s", i+1, safeName(in.Job+"-"+in.Instance)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				res.Err = ctx.Err().Error()
				return
			}
			defer func() { <-sem }()
			if o.Progress != nil {
				mu.Lock()
				o.Progress(done, len(worst), in.Job+" "+in.Instance)
				mu.Unlock()
			}
			dctx, cancel := context.WithTimeout(ctx, o.Timeout)
			defer cancel()
			start := time.Now()
			d, err := o.Diagnose(dctx, u, res.Dir)
			res.Secs = time.Since(start).Seconds()
			if err != nil {
				if dctx.Err() == context.DeadlineExceeded {
					err = fmt.Errorf("no diagnosis within %s: %v", o.Timeout, err)
				}
				res.Err = oneLine(err.Error())
			} else {
				res.Diagnosis = d
			}
			mu.Lock()
			done++
			if o.Progress != nil {
				o.Progress(done, len(worst), "")
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out, nil
}

// safeName keeps the letters, digits, dots and dashes of s, for a
// directory name.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 80 {
		b = b[:80]
	}
	return string(b)
}

// Check says, in terms of the command's flags, what is wrong with the
// drill-down a user asked for.
func (do *DrillOptions) Check() error {
	switch {
	case do.Top < 0 || do.Top > MaxDrill:
		return fmt.Errorf("--drill must be between 0 and %d", MaxDrill)
	case do.Parallel < 1 || do.Parallel > MaxDrillParallel:
		return fmt.Errorf("--drill-parallel must be between 1 and %d", MaxDrillParallel)
	case do.Timeout <= 0 || do.Timeout > time.Hour:
		return errors.New("--drill-timeout must be positive and at most 1h")
	}
	return nil
}
