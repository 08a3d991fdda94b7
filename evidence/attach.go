package evidence

import (
	"context"

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
	if err != nil {
		if res == nil || len(res.Files) == 0 {
			// Nothing was collected: take back what this writer made, and
			// nothing else.
			w.Abort()
		}
		return nil, err
	}
	opt.say("evidence kept in %s", ao.Out)
	set, err := LoadBundle(ctx, ao.Out, opt)
	if err == nil && res.TraceSkipped != "" {
		set.note("%s", res.TraceSkipped)
	}
	return set, err
}
