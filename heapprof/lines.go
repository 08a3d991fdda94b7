package heapprof

import (
	"cmp"
	"slices"
)

// Line is a source line with the bytes of every allocation whose stack
// passes through it: the allocating line itself, or a call on the way to
// it. A call to a helper that allocates, such as newBuf() making a buffer,
// is charged what the helper allocated for it, which the sites, charged to
// the innermost line of the user's code, give to the helper's line.
type Line struct {
	Function string
	File     string
	Line     int
	// AllocBytes is the bytes allocated by the samples whose stack holds
	// the line, each sample counted once however often the line recurs.
	AllocBytes int64
	// Share is AllocBytes over the profile's total alloc bytes (0–1).
	Share float64
}

// Lines returns every source line on the profile's stacks with the bytes
// allocated through it, the heaviest first. There is at most one per
// distinct frame of the profile, which Read bounds.
func (p *Profile) Lines() []Line {
	type key struct {
		file string
		line int
	}
	idx := map[key]int{}
	var out []Line
	seen := map[int]bool{} // lines of the current sample
	for i := range p.samples {
		sm := &p.samples[i]
		clear(seen)
		for _, fi := range sm.stack {
			f := &p.frames[fi]
			if f.File == "" || f.Line <= 0 {
				continue
			}
			k := key{f.File, f.Line}
			j, ok := idx[k]
			if !ok {
				j = len(out)
				idx[k] = j
				out = append(out, Line{Function: f.Function, File: f.File, Line: f.Line})
			}
			if !seen[j] {
				seen[j] = true
				out[j].AllocBytes += sm.v[vAllocBytes]
			}
		}
	}
	for i := range out {
		if p.TotalAllocBytes > 0 {
			out[i].Share = float64(out[i].AllocBytes) / float64(p.TotalAllocBytes)
		}
	}
	slices.SortStableFunc(out, func(a, b Line) int {
		if c := cmp.Compare(b.AllocBytes, a.AllocBytes); c != 0 {
			return c
		}
		if c := cmp.Compare(a.File, b.File); c != 0 {
			return c
		}
		return cmp.Compare(a.Line, b.Line)
	})
	return out
}
