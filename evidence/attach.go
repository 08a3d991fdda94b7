package evidence

import (
	"context"
	"strings"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/collect"
)

// AttachOptions say what to collect from a running program.
type AttachOptions struct {
	// Out is the bundle directory to create for what is collected.
	Out string
	// Seconds is the length of the execution trace; 0 skips it.
	Seconds int
	// ToolVersion is recorded in the bundle's meta.json.
	ToolVersion string
}

// Attach collects a running program's profiles and execution trace from its
// /debug/pprof into a new bundle, then reads the bundle as LoadBundle does.
// The bundle stays for later analysis; when nothing could be collected it
// is removed again.
func Attach(ctx context.Context, url string, ao AttachOptions, opt Options) (*Set, error) {
	w, err := bundle.Create(ao.Out)
	if err != nil {
		return nil, err
	}
	res, err := collect.Attach(ctx, collect.AttachSpec{URL: url, Seconds: ao.Seconds, Out: w, ToolVersion: ao.ToolVersion,
		Progress: func(what string) { opt.say("fetching the %s", what) }})
	var partial error
	if err != nil {
		if res == nil || len(res.Files) == 0 {
			// Nothing was collected: take back what this writer made, and
			// nothing else.
			w.Abort()
			return nil, err
		}
		if res.Live == nil || ctx.Err() != nil {
			return nil, err
		}
		// A program that serves its GC figures but not every profile
		// (only /metrics, say) is still diagnosed from what it serves.
		partial = err
	}
	opt.say("evidence kept in %s", ao.Out)
	set, err := LoadBundle(ctx, ao.Out, opt)
	if err != nil {
		return set, err
	}
	if partial != nil {
		set.note("%v", partial)
	}
	if res.TraceSkipped != "" {
		set.note("%s", res.TraceSkipped)
	}
	if lr := res.Live; lr != nil {
		if set.Input.Live != nil {
			set.Input.Live.Agent = lr.Agent
		}
		if len(lr.Agent) > 0 {
			set.note("gcdoctor's agent added %s", joinAnd(lr.Agent))
		}
	}
	return set, nil
}

// joinAnd joins phrases as a sentence does: "a, b and c".
func joinAnd(ps []string) string {
	if len(ps) < 2 {
		return strings.Join(ps, "")
	}
	return strings.Join(ps[:len(ps)-1], ", ") + " and " + ps[len(ps)-1]
}
