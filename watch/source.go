package watch

import (
	"context"
	"errors"
	"time"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/live"
)

// Source is what a Session watches.
type Source interface {
	// Name says what is watched, as the screen's title shows it.
	Name() string
	// Poll reads the program now and returns the KPIs of the interval
	// since the previous Poll and of the recent span of at most span
	// intervals that ends now, for the rules. The first Poll is the
	// baseline: it returns nil KPIs. ErrEnded says that the program is
	// gone and nothing more will come.
	Poll(ctx context.Context, span int) (interval, recent *live.KPIs, err error)
	// Record writes what was seen into a bundle that gcdoctor doctor
	// reads, describing each file written in meta.Files.
	Record(out *bundle.Writer, meta *bundle.Meta) error
	// Sources names where the figures come from ("metrics", "gctrace").
	Sources() []string
}

// ErrEnded is the error of a Poll after the watched program ended.
var ErrEnded = errors.New("the program ended")

// maxRecorded bounds the samples a URL source keeps for its recording:
// an hour at one a second. Past it, the oldest in the middle are dropped;
// the first and the last are always kept.
const maxRecorded = 3600

// urlSource watches a service through the endpoints it serves.
type urlSource struct {
	sampler *live.Sampler
	name    string
	// recent are the last snapshots, oldest first, at most span+1.
	recent []*live.Snapshot
	// first is the first snapshot; recorded the samples since, cut to the
	// sources whose pause rings a recording keeps, oldest first.
	first    *live.Snapshot
	recorded []*live.Snapshot
	interval time.Duration
}

// NewURL returns a source that reads the service at raw (a base URL such
// as localhost:6060, or its /debug/pprof/ page) through every endpoint it
// serves, as attach does.
func NewURL(raw string, interval time.Duration) (Source, error) {
	s, err := live.NewSampler(raw)
	if err != nil {
		return nil, err
	}
	return &urlSource{sampler: s, name: s.Base.Redacted(), interval: interval}, nil
}

func (u *urlSource) Name() string { return u.name }

func (u *urlSource) Sources() []string {
	var out []string
	for _, s := range u.sampler.Found() {
		out = append(out, string(s))
	}
	return out
}

func (u *urlSource) Poll(ctx context.Context, span int) (interval, recent *live.KPIs, err error) {
	snap, _, err := u.sampler.Sample(ctx)
	if err != nil {
		return nil, nil, err
	}
	if u.first == nil {
		u.first = snap
	} else {
		u.keep(snap)
	}
	u.recent = append(u.recent, snap)
	if n := len(u.recent) - (span + 1); n > 0 {
		u.recent = append(u.recent[:0], u.recent[n:]...)
	}
	if len(u.recent) < 2 {
		return nil, nil, nil
	}
	prev := u.recent[len(u.recent)-2]
	if interval, err = live.Between(prev, snap); err != nil {
		if errors.Is(err, live.ErrRestarted) {
			// The service is another process now: start again from it,
			// and record it alone.
			u.recent = u.recent[len(u.recent)-1:]
			u.first, u.recorded = snap, nil
		}
		return nil, nil, err
	}
	recent, err = live.Between(u.recent[0], snap, u.recent[1:len(u.recent)-1]...)
	return interval, recent, err
}

// keep adds a sample to the recording, its pause rings only: the rest of
// a sample taken during the window is not stored.
func (u *urlSource) keep(full *live.Snapshot) {
	snap := live.NewSnapshot(full.Time)
	for src, data := range full.Raw {
		if src.HasPauses() {
			snap.Raw[src] = data
		}
	}
	if len(u.recorded) >= maxRecorded {
		// Thin the middle rather than drop the start: every other of
		// the older half goes.
		half := u.recorded[:len(u.recorded)/2]
		kept := half[:0]
		for i, s := range half {
			if i%2 == 0 {
				kept = append(kept, s)
			}
		}
		u.recorded = append(kept, u.recorded[len(u.recorded)/2:]...)
	}
	u.recorded = append(u.recorded, snap)
}

func (u *urlSource) Record(out *bundle.Writer, meta *bundle.Meta) error {
	if u.first == nil || len(u.recorded) == 0 {
		return errors.New("fewer than two samples were taken: nothing to record")
	}
	last := u.recent[len(u.recent)-1]
	during := u.recorded[:len(u.recorded)-1]
	if err := collect.StoreLive(out, u.first, last, during, meta.Files, u.interval); err != nil {
		return err
	}
	if last.Agent != nil {
		meta.GoVersion = last.Agent.GoVersion
	} else if last.Metrics != nil {
		meta.GoVersion = last.Metrics.GoVersion
	}
	meta.Start, meta.DurationMS = u.first.Time.UTC(), float64(last.Time.Sub(u.first.Time).Milliseconds())
	return nil
}
