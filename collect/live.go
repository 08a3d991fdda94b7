package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/gcdoctor/gcdoctor/agent"
	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/live"
)

// LiveInterval is how often Attach samples the pause ring of the program's
// MemStats during its window: the ring holds the last 256 pauses, which a
// program collecting more than 1,000 times a second would outrun.
const LiveInterval = 250 * time.Millisecond

// MinLiveWindow is the shortest window Attach samples a program over. The
// window lasts as long as the trace asked for (AttachSpec.Seconds), and at
// least this long: without a trace the profiles take less time than that
// to download, and a window must see a few cycles to say anything.
const MinLiveWindow = 2 * time.Second

// liveSampling samples what a running program serves about its own GC at
// the start and the end of Attach's window, and its pause ring in between.
type liveSampling struct {
	ctx     context.Context
	client  *http.Client
	sampler *live.Sampler
	start   *live.Snapshot
	// failed says why each source that was tried first gave nothing.
	failed map[live.Source]error
	stop   chan struct{}
	done   chan []*live.Snapshot
	// window is the least time between the first and the last sample.
	window time.Duration
}

// startLive takes the first sample and starts sampling the pause ring over
// a window of at least seconds (and MinLiveWindow). It returns nil when the
// program serves none of the sources: Attach then collects its profiles as
// before.
func startLive(ctx context.Context, client *http.Client, base *url.URL, seconds int) *liveSampling {
	l := &liveSampling{ctx: ctx, client: client, window: max(time.Duration(seconds)*time.Second, MinLiveWindow), sampler: &live.Sampler{Base: live.BaseOf(base)}, stop: make(chan struct{}), done: make(chan []*live.Snapshot, 1)}
	l.sampler.Get = func(ctx context.Context, u *url.URL) ([]byte, error) {
		d := download{client: client, url: u, timeout: live.ReadTimeout, limit: live.MaxReadBytes}
		return d.bytes(ctx)
	}
	start, failed, err := l.sampler.Sample(ctx)
	l.failed = failed
	if err != nil {
		return nil
	}
	l.start = start
	go l.sampleDuring()
	return l
}

// sampleDuring samples the MemStats sources until stopped.
func (l *liveSampling) sampleDuring() {
	var during []*live.Snapshot
	defer func() { l.done <- during }()
	var pauses []live.Source
	for _, s := range l.sampler.Found() {
		if s == live.MemStats || s == live.Expvar {
			pauses = append(pauses, s)
		}
	}
	if len(pauses) == 0 {
		return
	}
	t := time.NewTicker(LiveInterval)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-l.ctx.Done():
			return
		case <-t.C:
			if snap, _, err := l.sampler.Sample(l.ctx, pauses...); err == nil && len(during) < 10000 {
				during = append(during, snap)
			}
		}
	}
}

// end takes the last sample, writes every sample into the bundle, and,
// where gcdoctor's agent is there, its flight recording (when no trace was
// taken) and goroutine-leak profile.
func (l *liveSampling) end(out *bundle.Writer, res *AttachResult) error {
	if wait := l.window - time.Since(l.start.Time); wait > 0 {
		select {
		case <-time.After(wait):
		case <-l.ctx.Done():
		}
	}
	close(l.stop)
	during := <-l.done
	end, _, err := l.sampler.Sample(l.ctx)
	if err != nil {
		return nil
	}
	if err := StoreLive(out, l.start, end, during, res.Files, LiveInterval); err != nil {
		return err
	}
	res.Live = &LiveResult{Sources: end.Sources(), WindowS: end.Time.Sub(l.start.Time).Seconds(), During: len(during)}
	if end.Agent != nil {
		return l.fromAgent(end.Agent, out, res)
	}
	return nil
}

// StoreLive writes the samples of a window into a bundle, as doctor reads
// them: each source at the start and end, the pause rings sampled during
// it (every interval), and when each was taken. files gets a description
// of each file written.
func StoreLive(out *bundle.Writer, start, end *live.Snapshot, during []*live.Snapshot, files map[string]string, interval time.Duration) error {
	for _, snap := range []*live.Snapshot{start, end} {
		stage := live.Start
		if snap == end {
			stage = live.End
		}
		for src, data := range snap.Raw {
			if err := writeFile(out, src.File(stage), data); err != nil {
				return err
			}
			files[src.File(stage)] = fmt.Sprintf("%s at the %s of the window, as /%s served it", src, stage, src.Path())
		}
	}
	var times []time.Time
	stored := map[live.Source][]byte{}
	for _, snap := range during {
		times = append(times, snap.Time)
		for src, data := range snap.Raw {
			if src.HasPauses() {
				stored[src] = live.AppendDuring(stored[src], data)
			}
		}
	}
	for src, data := range stored {
		if err := writeFile(out, src.File(live.During), data); err != nil {
			return err
		}
		files[src.File(live.During)] = fmt.Sprintf("%s sampled every %s during the window, for its ring of the last 256 pauses", src, interval)
	}
	if err := writeFile(out, live.TimesFile, live.EncodeTimes(start.Time, end.Time, times)); err != nil {
		return err
	}
	files[live.TimesFile] = "when each sample of the program's GC figures was taken"
	return nil
}

// LiveResult says what Attach sampled of the program's own GC figures.
type LiveResult struct {
	// Sources are the endpoints the program serves them on.
	Sources []live.Source
	// WindowS is the time between the first and the last sample, s;
	// During counts the samples in between.
	WindowS float64
	During  int
	// Agent lists what gcdoctor's agent added, one phrase each.
	Agent []string
}

// fromAgent takes what the agent serves beyond its metrics: the flight
// recording as the trace when no trace was recorded, and the
// goroutine-leak profile, which runs a GC and so comes after the last
// sample.
func (l *liveSampling) fromAgent(a *agent.Snapshot, out *bundle.Writer, res *AttachResult) error {
	res.Live.Agent = append(res.Live.Agent, "the GC's exact CPU from runtime/metrics")
	base := l.sampler.Base.JoinPath("debug/gcdoctor")
	client := l.client
	if a.FlightRecorder && res.Files[bundle.TraceFile] == "" {
		d := download{client: client, url: base.JoinPath(agent.FlightRecorderPath), timeout: ProfileTimeout, limit: traceLimit(60)}
		minor, err := d.trace(l.ctx, out)
		switch {
		case err == nil:
			res.Files[bundle.TraceFile] = "flight-recorder trace of the seconds before the end of the window (gcdoctor agent)"
			res.Live.Agent = append(res.Live.Agent, "a flight-recorder trace as trace.out")
			if res.GoVersion == "" {
				res.GoVersion = fmt.Sprintf("go1.%d", minor)
			}
		case errors.Is(err, errOldTrace):
		default:
			res.Live.Agent = append(res.Live.Agent, "no flight-recorder trace: "+err.Error())
		}
	}
	if a.GoroutineLeak && res.Files[bundle.GoroutineLeakFile] == "" {
		d := download{client: client, url: base.JoinPath(agent.GoroutineLeakPath), timeout: ProfileTimeout, limit: MaxProfileBytes}
		if err := d.profile(l.ctx, out, bundle.GoroutineLeakFile); err == nil {
			res.Files[bundle.GoroutineLeakFile] = "goroutine-leak profile (gcdoctor agent)"
			res.Live.Agent = append(res.Live.Agent, "the goroutine-leak profile")
		}
	}
	return nil
}

// writeFile writes data to the bundle file name.
func writeFile(out *bundle.Writer, name string, data []byte) error {
	f, err := out.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// bytes reads the whole answer, within the download's bounds.
func (d *download) bytes(ctx context.Context) ([]byte, error) {
	r, err := d.get(ctx)
	if err != nil {
		return nil, err
	}
	defer r.close()
	var b bytes.Buffer
	if _, err := d.copyBody(r, &b, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
