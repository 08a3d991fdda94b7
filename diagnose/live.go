package diagnose

import (
	"fmt"
	"math"
	"strings"

	"github.com/gcdoctor/gcdoctor/live"
)

// LiveEvidence is what a running program served about its own GC at the
// start and the end of a window (MemStats, /metrics, expvar, gcdoctor's
// agent), turned into the figures a gctrace log of the window gives. The
// built-in rules judge it where it means what a gctrace segment means.
type LiveEvidence struct {
	// Name is where the samples are: the bundle, or the program's URL.
	Name string
	KPIs *live.KPIs
	// Agent lists what gcdoctor's agent added, one phrase each; nil
	// without the agent.
	Agent []string
}

// liveView is the live evidence as the rules see it.
type liveView struct {
	*LiveEvidence
	k *live.KPIs
}

// live returns the live evidence, nil when there is none.
func (c *evidenceView) live() *liveView {
	if c.in.Live == nil || c.in.Live.KPIs == nil {
		return nil
	}
	return &liveView{c.in.Live, c.in.Live.KPIs}
}

// src names the figures' source for a finding's evidence: the samples and
// the endpoints they came from.
func (v *liveView) src() string {
	var s []string
	for _, x := range v.k.Sources {
		s = append(s, string(x))
	}
	return fmt.Sprintf("%s (%s, %s s window)", v.Name, strings.Join(s, ", "), f1(v.k.WindowS))
}

// who names the program in a sentence.
func (v *liveView) who() string { return "the running program" }

// over says the window in a sentence.
func (v *liveView) over() string { return "over the " + f1(v.k.WindowS) + " s window" }

// known reports whether a figure is known.
func known(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// mib formats bytes as MiB, the unit the gctrace findings use ("MB").
func mib(b float64) string { return mb(int64(b / (1 << 20))) }

// gogc returns the GOGC in force: the program's own when a source gave
// it, else the one the evidence view assumes.
func (v *liveView) gogc(c *evidenceView) (g int, off bool) {
	switch {
	case v.k.GOGC < 0:
		return 0, true
	case v.k.GOGC > 0:
		return v.k.GOGC, false
	}
	return c.gogc, c.off
}
