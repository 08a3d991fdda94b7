package diagnose

// remedyHeapBoxing is heap-boxing's remedy, in its documentation and its findings.
const remedyHeapBoxing = "Keep the value concrete on the hot path: typed functions instead of any, no small values stored in interfaces, pointers to values that exist already, and closures that do not outlive the call or capture less."

func init() {
	register(&Rule{
		ID: "heap-boxing", Title: "Values escape to the heap through interfaces or closures", Severity: Info, Rank: 33,
		Evidence: "heap profile + escape analysis",
		Rationale: `Converting a value to an interface (passing it as any, storing it in an
interface-typed field, logging it with fmt) or capturing a variable in a
closure that outlives the call makes the compiler allocate it on the heap.
On a hot line each call is a small allocation, and they add up.`,
		Detection: hotSiteDetection + ` where escape
analysis (gcdoctor heap --source) puts a value on the heap to convert it to
an interface ("v escapes to heap" for a variable, or the reason
"interface-converted") or because a closure captures it ("captured by a
closure").`,
		Remedy: remedyHeapBoxing,
		Verify: `Run escape analysis again (gcdoctor heap --source): the line should no
longer escape, and the profile should no longer charge it.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patBoxing, remedyHeapBoxing, nil)
		},
	})
}
