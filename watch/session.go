package watch

import (
	"context"
	"errors"
	"time"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/internal/terminal"
	"github.com/gcdoctor/gcdoctor/live"
)

// Bounds of a Session.
const (
	// MinInterval and MaxInterval bound how often a Session polls.
	MinInterval, MaxInterval = 100 * time.Millisecond, time.Minute
	// maxHistory is how many intervals a Frame's history holds: more
	// than an 80-column terminal's sparklines draw, and few enough to
	// copy each interval.
	maxHistory = 240
	// span is how many intervals the rules judge together: a second's
	// cycles are too few to tell a finding from noise.
	span = 10
)

// Frame is what a Session knows after a poll.
type Frame struct {
	// Name is what is watched; Sources where its figures come from.
	Name    string
	Sources []string
	// Started is when watching began; Polls counts the polls so far.
	Started time.Time
	Polls   int
	// Point is the last interval's figures, and History the intervals
	// before it and it, oldest first, at most maxHistory. Empty until the
	// second poll.
	Point   Point
	History []Point
	// Fresh reports that Point is this poll's, rather than an earlier
	// one's kept when this poll gave nothing new.
	Fresh bool
	// Findings are those the rules make of the recent span, most severe
	// first, with when each first appeared.
	Findings []Finding
	// Err is why the last poll failed, escaped for a terminal; "" when
	// it did not.
	Err string
	// Output is the watched program's last line of its own output, and
	// Ended reports that it has ended (only for a program watch started).
	Output string
	Ended  bool
}

// Finding is a rule that fires on the recent span.
type Finding struct {
	ID, Severity, Title string
	// Message is the finding's one or two sentences with the numbers that
	// matter, escaped for a terminal.
	Message string
	Since   time.Time
}

// outputter is a source that runs the program it watches.
type outputter interface {
	Output() (last string, ended bool, err error)
}

// Session polls a Source every interval.
type Session struct {
	src      Source
	interval time.Duration
	frame    Frame
	since    map[string]time.Time
}

// NewSession returns a session that polls src every interval, bounded to
// [MinInterval, MaxInterval].
func NewSession(src Source, interval time.Duration) *Session {
	interval = min(max(interval, MinInterval), MaxInterval)
	return &Session{src: src, interval: interval, since: map[string]time.Time{},
		frame: Frame{Name: src.Name()}}
}

// Interval is how often the session polls.
func (s *Session) Interval() time.Duration { return s.interval }

// Run polls until ctx ends, the program ends, or stop returns true, and
// hands each Frame to emit. It returns the error of the first poll when
// that fails (nothing is there to watch), else nil.
func (s *Session) Run(ctx context.Context, emit func(*Frame) (stop bool)) error {
	s.frame.Started, s.frame.Name = time.Now(), s.src.Name()
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		err := s.poll(ctx)
		if ctx.Err() != nil {
			// A poll cut short by the end says nothing new.
			return nil
		}
		if s.frame.Polls == 1 && err != nil && !errors.Is(err, ErrEnded) {
			return err
		}
		f := s.frame
		f.History = append([]Point(nil), s.frame.History...)
		if emit(&f) || f.Ended || ctx.Err() != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// poll takes one interval's figures and judges the recent span.
func (s *Session) poll(ctx context.Context) error {
	f := &s.frame
	f.Polls++
	interval, recent, err := s.src.Poll(ctx, span)
	f.Sources = s.src.Sources()
	if o, ok := s.src.(outputter); ok {
		f.Output, _, _ = o.Output()
	}
	f.Ended = errors.Is(err, ErrEnded)
	f.Err, f.Fresh = "", false
	if err != nil {
		if !errors.Is(err, ErrEnded) {
			f.Err = terminal.Escape(err.Error())
		}
		return err
	}
	if interval == nil {
		return nil
	}
	p := pointOf(time.Now(), interval)
	f.Findings = s.judge(recent, p.T)
	for _, x := range f.Findings {
		p.Findings = append(p.Findings, x.ID)
	}
	f.Point, f.Fresh = p, true
	f.History = append(f.History, p)
	if n := len(f.History) - maxHistory; n > 0 {
		f.History = append(f.History[:0], f.History[n:]...)
	}
	return nil
}

// judge applies the rules to the recent span's figures. A rule that stops
// firing and fires again later is new again.
func (s *Session) judge(recent *live.KPIs, now time.Time) []Finding {
	if recent == nil {
		return nil
	}
	d := diagnose.Diagnose(&diagnose.Input{GoVersion: recent.GoVersion,
		Live: &diagnose.LiveEvidence{Name: s.src.Name(), KPIs: recent}})
	var out []Finding
	seen := map[string]bool{}
	for _, f := range d.Findings {
		if seen[f.ID] {
			continue
		}
		seen[f.ID] = true
		since, ok := s.since[f.ID]
		if !ok {
			since = now
			s.since[f.ID] = now
		}
		out = append(out, Finding{ID: f.ID, Severity: f.Severity.String(), Title: f.Title,
			Message: terminal.Escape(f.Message), Since: since})
	}
	for id := range s.since {
		if !seen[id] {
			delete(s.since, id)
		}
	}
	return out
}
