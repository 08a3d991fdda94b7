package diagnose

import (
	"path/filepath"

	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/workers"
)

// The trace rules (goroutine-explosion, workers-*, trace-*) judge goroutine
// groups, stop-the-world pauses and mark assists as an execution trace
// records them; the helpers they share are here.

// TraceEvidence is an analysed runtime execution trace.
type TraceEvidence struct {
	Name   string // the trace file
	Result *exectrace.Result
}

// userGroups returns the trace's goroutine groups of the program's own code,
// busiest first.
func userGroups(r *exectrace.Result) []*exectrace.Group { return r.UserGroups() }

// groupRef is a goroutine group as the rules handle it.
type groupRef = exectrace.Group

// recommendWorkers sizes a worker group from its measured time split.
func recommendWorkers(g *exectrace.Group, procs int) workers.Recommendation {
	return workers.Recommend(workers.FromGroup(g), procs, workers.Options{})
}

// traceName is the trace file's name, the source of the trace rules' evidence.
func traceName(c *evidenceView) string { return filepath.Base(c.in.Trace.Name) }

// longLived reports whether a group's goroutines typically live through
// most of the trace.
func longLived(t *TraceEvidence, g *exectrace.Group) bool {
	d := float64(t.Result.Duration.Microseconds()) / 1000
	return d > 0 && g.LifetimeMS.P50 >= 0.8*d
}

// perItem reports whether a group's goroutines are started one per item
// rather than kept as a pool, from the shape of the spawning: at least 100
// started during the trace, which waited for work (on a channel, in a
// select or on a sync.Cond) at most once each on average. A pool's
// workers wait so between items, over and over; and when their queue
// never runs dry, they still wait for each item's I/O, so that a pool's
// goroutines stop (for anything, system calls included) many times each,
// and per-item ones a few times at most (seed 004's pool of 128: 44 each;
// seed 000's per-item goroutines: none). Lifetimes cannot tell the two
// apart: on a loaded machine, or with items longer than the scheduler's
// time slice, a burst of per-item goroutines takes turns on the Ps and
// lives through the trace like a pool.
func perItem(g *exectrace.Group) bool {
	return g.Created >= 100 && g.WorkWaits <= g.Count && g.Waits <= maxItemWaits*g.Count
}

// maxItemWaits is the most a goroutine started for one item stops on
// average: for its item's I/O, and to hand its result over.
const maxItemWaits = 4
