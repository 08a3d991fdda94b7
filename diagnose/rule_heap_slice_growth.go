package diagnose

func init() {
	register(&Rule{
		ID: "heap-slice-growth", Title: "A slice grows by append, reallocating as it goes", Severity: Warning, Rank: 28,
		Evidence: "heap profile + source",
		Rationale: `append doubles a slice's backing array when it is full (then grows it by
about 1.25×): filling a slice of n elements from empty allocates about log n
arrays and copies every element several times, all of it garbage but the
last array.`,
		Detection: `A mostly short-lived site (less than half its bytes still live) charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes whose source line calls
append (the profile charges runtime.growslice to that line).`,
		Remedy: `When the final length is known or can be estimated, allocate once:
make([]T, 0, n) before the loop. When slices are built per request, reuse one
with s = s[:0].`,
		Verify: `Take the profile again: the append line should allocate one array per
slice, a fraction of the bytes it did.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patAppend, func(s *HeapSite, f *Finding) {
				f.Remedy = "Preallocate: make([]T, 0, n) with the known or estimated final length before the loop, or reuse a slice with s = s[:0]."
			})
		},
	})
}
