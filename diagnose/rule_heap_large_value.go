package diagnose

func init() {
	register(&Rule{
		ID: "heap-large-value", Title: "A large local value is moved to the heap", Severity: Warning, Rank: 33,
		Evidence: "heap profile + escape analysis",
		Rationale: `The compiler keeps values on the stack only up to a size limit (64 KiB for
implicit variables, 10 MiB for explicit ones in current versions); a larger
local array or struct is allocated on the heap on every call ("too large for
stack").`,
		Detection: `A mostly short-lived site (less than half its bytes still live) charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes where escape analysis says
a value on that line is too large for the stack.`,
		Remedy: `Reuse the value through a sync.Pool of pointers, allocate it once per
long-lived object instead of per call, or shrink it.`,
		Verify: `Take the profile again and run escape analysis: the line should no longer
allocate per call.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patLargeValue, func(s *HeapSite, f *Finding) {
				f.Remedy = "The value is too large for the stack, so every call allocates it: reuse it through a sync.Pool of pointers or keep it in a long-lived object."
			})
		},
	})
}
