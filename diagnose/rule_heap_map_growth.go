package diagnose

// remedyHeapMapGrowth is heap-map-growth's remedy, in its documentation and its findings.
const remedyHeapMapGrowth = "Size the map when it is created: make(map[K]V, n). If it is rebuilt per request, clear(m) and reuse it."

func init() {
	register(&Rule{
		ID: "heap-map-growth", Title: "A map grows, rehashing as it goes", Severity: Warning, Rank: 29,
		Evidence: "heap profile + source",
		Rationale: `A map created without a size hint grows in steps, allocating new bucket
arrays and moving every entry each time.`,
		Detection: hotSiteDetection + ` whose source line creates a
map or assigns to one.`,
		Remedy: remedyHeapMapGrowth,
		Verify: `Take the profile again and compare the line's bytes.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patMap, remedyHeapMapGrowth, nil)
		},
	})
}
