package exectrace

import (
	"cmp"
	"slices"
)

// UserGroups returns the goroutine groups of the program's own code (not
// the runtime's), the busiest first: the most time running or waiting to
// run. The groups are those of r.Groups, not copies.
func (r *Result) UserGroups() []*Group {
	var gs []*Group
	for i := range r.Groups {
		if !r.Groups[i].Runtime {
			gs = append(gs, &r.Groups[i])
		}
	}
	slices.SortStableFunc(gs, func(a, b *Group) int {
		return cmp.Compare(b.RunningMS+b.RunnableMS, a.RunningMS+a.RunnableMS)
	})
	return gs
}
