package diagnose

import (
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/workers"
)

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
