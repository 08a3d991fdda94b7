package heapprof

import (
	"cmp"
	"slices"
)

// Change compares one site between two profiles.
type Change struct {
	Function, File string
	Line           int
	Base, New      Site  // zero when the site is missing from that profile
	DeltaBytes     int64 // New.AllocBytes − Base.AllocBytes
	DeltaObjects   int64 // New.AllocObjects − Base.AllocObjects
}

// Diff compares the sites of base and p, charged and filtered by opts
// (opts.N applies to the result), and orders them by the size of the change
// in allocated bytes, largest first. Sites match on function, file and line,
// so a site whose line moved between builds shows as one removed and one
// added.
func Diff(base, p *Profile, opts SiteOptions) []Change {
	n := opts.N
	opts.N = 0
	type key struct {
		fn, file string
		line     int
	}
	byKey := make(map[key]*Change)
	var order []key
	add := func(sites []Site, isNew bool) {
		for _, s := range sites {
			k := key{s.Function, s.File, s.Line}
			c := byKey[k]
			if c == nil {
				c = &Change{Function: s.Function, File: s.File, Line: s.Line}
				byKey[k] = c
				order = append(order, k)
			}
			if isNew {
				c.New = s
			} else {
				c.Base = s
			}
		}
	}
	add(base.Sites(opts), false)
	add(p.Sites(opts), true)
	out := make([]Change, 0, len(order))
	for _, k := range order {
		c := byKey[k]
		c.DeltaBytes = c.New.AllocBytes - c.Base.AllocBytes
		c.DeltaObjects = c.New.AllocObjects - c.Base.AllocObjects
		out = append(out, *c)
	}
	abs := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	slices.SortStableFunc(out, func(a, b Change) int {
		return cmp.Compare(abs(b.DeltaBytes), abs(a.DeltaBytes))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
