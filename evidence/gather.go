package evidence

import (
	"context"
	"time"

	"github.com/gcdoctor/gcdoctor/collect"
)

// Gather reads the evidence of whatever gcdoctor doctor is pointed at:
// with program set, it runs args as spec says (its Path and Args are taken
// from args) into a bundle at dir (see Run); given one URL, it attaches to
// it for seconds of trace into dir, a new gcdoctor-doctor-TIME when ""
// (see Attach); else it reads args as files and bundles (see Load). The
// exit status is the program's, 0 when none was run.
func Gather(ctx context.Context, args []string, program bool, spec collect.Spec, dir string, seconds int, opt Options) (*Set, int, error) {
	switch {
	case program:
		spec.Path, spec.Args = args[0], args[1:]
		return Run(ctx, spec, dir, opt)
	case len(args) == 1 && collect.IsURL(args[0]):
		set, err := AttachURL(ctx, args[0], AttachOptions{Out: dir, Seconds: seconds, ToolVersion: spec.ToolVersion}, "gcdoctor-doctor-", opt)
		return set, 0, err
	}
	set, err := Load(ctx, args, opt)
	return set, 0, err
}

// AttachURL is Attach for a command: the bundle goes to ao.Out, or when
// that is "" to a new directory named prefix and the date and time, and
// the diagnosis's check commands attach to url again.
func AttachURL(ctx context.Context, url string, ao AttachOptions, prefix string, opt Options) (*Set, error) {
	if ao.Out == "" {
		ao.Out = prefix + time.Now().Format("20060102-150405")
	}
	set, err := Attach(ctx, url, ao, opt)
	if err == nil {
		set.Input.Recheck.URL = url
	}
	return set, err
}
