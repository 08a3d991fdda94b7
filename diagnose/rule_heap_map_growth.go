package diagnose

func init() {
	register(&Rule{
		ID: "heap-map-growth", Title: "A map grows, rehashing as it goes", Severity: Warning, Rank: 29,
		Evidence: "heap profile + source",
		Rationale: `A map created without a size hint grows in steps, allocating new bucket
arrays and moving every entry each time.`,
		Detection: `A mostly short-lived site (less than half its bytes still live) charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes whose source line creates a
map or assigns to one.`,
		Remedy: `Give make a size hint when the number of entries is known: make(map[K]V, n).
For maps rebuilt per request, clear(m) and reuse one.`,
		Verify: `Take the profile again and compare the line's bytes.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patMap, func(s *HeapSite, f *Finding) {
				f.Remedy = "Size the map when it is created: make(map[K]V, n). If it is rebuilt per request, clear(m) and reuse it."
			})
		},
	})
}
