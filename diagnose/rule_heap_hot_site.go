package diagnose

func init() {
	register(&Rule{
		ID: "heap-hot-site", Title: "One line allocates a large share of the bytes", Severity: Info, Rank: 34,
		Evidence: "heap profile",
		Rationale: `Allocation rate drives GC frequency: a line that accounts for a large share
of all allocated bytes is where reducing allocation pays most, whatever the
reason it allocates.`,
		Detection: `A user site charged with ≥ 20% of the allocated bytes that no more specific
heap rule explains (the source line may not be readable here).`,
		Remedy: `Look at the line and at what it allocates (the profile's stack; escape
analysis with gcdoctor heap --source); reuse, preallocate or avoid the
allocation.`,
		Verify: `Take the profile again and compare the line's share.`,
		checkAll: func(c *evidenceView) []*Finding {
			fs := heapFindings(c, patOther, func(s *HeapSite, f *Finding) {
				f.Remedy = "Look at what the line allocates (the stack in the profile, and escape analysis with --source) and reuse, preallocate or avoid it."
			})
			var out []*Finding
			for _, f := range fs {
				if f.score >= 0.2 {
					out = append(out, f)
				}
			}
			return out
		},
	})
}
