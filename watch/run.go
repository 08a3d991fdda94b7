package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/diagnose"
)

// MaxFor bounds --for.
const MaxFor = 7 * 24 * time.Hour

// Config says how gcdoctor watch shows a session.
type Config struct {
	// Interval is how often to poll; For how long to watch, 0 for until
	// stopped.
	Interval, For time.Duration
	// Record, when set, is the bundle directory the session is recorded
	// to; it must not exist or be empty.
	Record string
	// JSONLines prints one Point per line instead of a screen.
	JSONLines bool
	// Terminal reports that Out is a terminal: the full-screen view is
	// drawn there; otherwise a line of text per interval.
	Terminal bool
	Style    Style
	In       io.Reader
	Out, Err io.Writer
	// Tool is how the commands printed start gcdoctor.
	Tool, ToolVersion string
}

// Check says, in terms of the command's flags, what is wrong with the
// interval and the duration asked for.
func (c *Config) Check() error {
	if c.Interval < MinInterval || c.Interval > MaxInterval {
		return fmt.Errorf("--interval must be between %s and %s", MinInterval, MaxInterval)
	}
	if c.For < 0 || c.For > MaxFor {
		return fmt.Errorf("--for must be between 0 (until stopped) and %s", MaxFor)
	}
	return nil
}

// Watch runs a session on src as c says, and records it when asked.
func Watch(ctx context.Context, src Source, c Config) (err error) {
	var out *bundle.Writer
	if c.Record != "" {
		// Made first, so that a directory that cannot take the
		// recording is said before the watching starts.
		if out, err = bundle.Create(c.Record); err != nil {
			return err
		}
	}
	if c.For > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, min(c.For, MaxFor))
		defer cancel()
	}
	s := NewSession(src, c.Interval)
	var last *Frame
	switch {
	case c.JSONLines:
		enc := json.NewEncoder(c.Out)
		err = s.Run(ctx, func(f *Frame) bool {
			last = f
			return f.Fresh && enc.Encode(f.Point) != nil
		})
	case c.Terminal:
		last, err = RunTerminal(ctx, s, c.In, c.Out, c.Style)
		if last != nil {
			// The screen is gone with the terminal's alternate
			// screen: what it showed last stays in the scrollback.
			fmt.Fprintln(c.Out, Screen(last, 80, 0, c.Style))
		}
	default:
		err = s.Run(ctx, func(f *Frame) bool {
			last = f
			if f.Fresh {
				_, werr := fmt.Fprintln(c.Out, Line(f))
				return werr != nil
			}
			return false
		})
	}
	if closer, ok := src.(interface{ Close() error }); ok {
		err = errors.Join(err, closer.Close())
	}
	if o, ok := src.(outputter); ok {
		if _, ended, exit := o.Output(); ended && last != nil && last.Ended {
			status := "exit status 0"
			if exit != nil {
				status = exit.Error()
			}
			fmt.Fprintf(c.Err, "%s ended: %s\n", src.Name(), status)
		}
	}
	if out != nil {
		err = errors.Join(err, record(src, out, last, c))
	}
	return err
}

// record writes the session's bundle, or takes back what it made when
// there is nothing to record.
func record(src Source, out *bundle.Writer, last *Frame, c Config) error {
	meta := &bundle.Meta{SchemaVersion: bundle.SchemaVersion, Created: time.Now().UTC(),
		ToolVersion: c.ToolVersion, Files: map[string]string{}}
	if last == nil || len(last.History) == 0 {
		return errors.Join(errors.New("--record: fewer than two samples were taken: nothing recorded"), out.Abort())
	}
	if err := src.Record(out, meta); err != nil {
		return errors.Join(fmt.Errorf("--record %s: %w", out.Dir(), err), out.Abort())
	}
	if err := out.WriteMeta(meta); err != nil {
		return errors.Join(fmt.Errorf("--record %s: %w", out.Dir(), err), out.Abort())
	}
	fmt.Fprintf(c.Err, "recorded to %s; diagnose it with: %s doctor %s\n", out.Dir(), c.Tool, diagnose.ShellQuote(out.Dir()))
	return nil
}

// Line is a Frame as one line of text, for a log rather than a screen.
func Line(f *Frame) string {
	p := f.Point
	cpu := cpuText(p)
	s := fmt.Sprintf("%s GC CPU %s, %s cycles/s, pause p99 %s, heap %s of %s, RSS %s, goroutines %s, alloc %s",
		clock(p.T.Sub(f.Started)), cpu, num(p.CyclesPerSecond), msText(p.PauseP99MS), size(p.HeapAllocBytes), size(p.HeapGoalBytes),
		size(p.RSSBytes), count(p.Goroutines), rate(p.AllocBytesPerSecond))
	if len(p.Findings) > 0 {
		s += " [" + strings.Join(p.Findings, " ") + "]"
	}
	return s
}
