package diagnose

// remedyHeapSliceGrowth is heap-slice-growth's remedy, in its documentation and its findings.
const remedyHeapSliceGrowth = "Preallocate: make([]T, 0, n) with the known or estimated final length before the loop, or reuse a slice with s = s[:0]."

func init() {
	register(&Rule{
		ID: "heap-slice-growth", Title: "A slice grows by append, reallocating as it goes", Severity: Warning, Rank: 28,
		Evidence: "heap profile + source",
		Rationale: `append doubles a slice's backing array when it is full (then grows it by
about 1.25×): filling a slice of n elements from empty allocates about log n
arrays and copies every element several times, all of it garbage but the
last array.`,
		Detection: hotSiteDetection + ` whose source line calls
append (the profile charges runtime.growslice to that line).`,
		Remedy: remedyHeapSliceGrowth,
		Verify: `Take the profile again: the append line should allocate one array per
slice, a fraction of the bytes it did.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patAppend, remedyHeapSliceGrowth, nil)
		},
	})
}
