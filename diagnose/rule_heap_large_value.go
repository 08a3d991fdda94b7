package diagnose

// remedyHeapLargeValue is heap-large-value's remedy, in its documentation and its findings.
const remedyHeapLargeValue = "Every call allocates the value because it is too large for the stack: reuse it through a sync.Pool of pointers, keep it in a long-lived object instead of allocating it per call, or shrink it."

func init() {
	register(&Rule{
		ID: "heap-large-value", Title: "A large local value is moved to the heap", Severity: Warning, Rank: 33,
		Evidence: "heap profile + escape analysis",
		Rationale: `The compiler keeps values on the stack only up to a size limit (64 KiB for
implicit variables, 10 MiB for explicit ones in current versions); a larger
local array or struct is allocated on the heap on every call ("too large for
stack").`,
		Detection: hotSiteDetection + ` where escape analysis says
a value on that line is too large for the stack.`,
		Remedy: remedyHeapLargeValue,
		Verify: `Take the profile again and run escape analysis: the line should no longer
allocate per call.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patLargeValue, remedyHeapLargeValue, nil)
		},
	})
}
