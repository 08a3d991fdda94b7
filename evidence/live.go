package evidence

import (
	"fmt"
	"io"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/live"
)

// maxLiveFile bounds each stored sample read back: what attach stores is
// bounded by live.MaxReadBytes, and a bundle made by hand is no larger.
const maxLiveFile = live.MaxReadBytes

// liveSamples reads what a running program served about its own GC, when
// the bundle holds it, into the input: the KPIs of the window between the
// first and the last sample.
func (l *loader) liveSamples(b *bundle.Bundle, name string) {
	if !b.Has(bundle.LiveTimesFile) {
		return
	}
	start, end, during, notes, err := live.Load(func(file string) ([]byte, error) {
		if !b.Has(file) {
			return nil, nil
		}
		f, err := b.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(ctxReader{l.ctx, f}, maxLiveFile+1))
		if err == nil && len(data) > maxLiveFile {
			err = fmt.Errorf("larger than %d MiB", maxLiveFile>>20)
		}
		return data, err
	})
	for _, n := range notes {
		l.set.note("%s", n)
	}
	if err != nil {
		l.set.note("the running program's own GC figures left out: %v", err)
		return
	}
	k, err := live.Between(start, end, during...)
	if err != nil {
		l.set.note("the running program's own GC figures left out: %v", err)
		return
	}
	l.in.Live = &diagnose.LiveEvidence{Name: name, KPIs: k}
	if l.in.GoVersion == "" {
		l.in.GoVersion = k.GoVersion
	}
	for _, c := range k.Caveats {
		l.set.note("live figures: %s", c)
	}
	if !k.GCCPU.Exact && len(k.Sources) > 0 {
		l.set.note("live figures: the GC's CPU is %s", k.GCCPU.From)
	}
}
