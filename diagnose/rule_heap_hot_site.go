package diagnose

// remedyHeapHotSite is heap-hot-site's remedy, in its documentation and its findings.
const remedyHeapHotSite = "Look at what the line allocates (the stack in the profile, and escape analysis with --source) and reuse, preallocate or avoid it."

func init() {
	register(&Rule{
		ID: "heap-hot-site", Title: "One line allocates a large share of the bytes", Severity: Info, Rank: 34,
		Evidence: "heap profile",
		Rationale: `Allocation rate drives GC frequency: a line that accounts for a large share
of all allocated bytes is where reducing allocation pays most, whatever the
reason it allocates.`,
		Detection: hotSiteDetection + `, and ≥ 20% of them, that no more
specific heap rule explains (the source line may not be readable here).`,
		Remedy: remedyHeapHotSite,
		Verify: `Take the profile again and compare the line's share.`,
		checkAll: func(c *evidenceView) []*Finding {
			fs := heapFindings(c, patOther, remedyHeapHotSite, nil)
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
