package diagnose

func init() {
	register(&Rule{
		ID: "heap-string-concat", Title: "Strings are built with + or +=", Severity: Warning, Rank: 30,
		Evidence: "heap profile + source",
		Rationale: `Strings are immutable: s += x allocates a new string and copies both parts,
so building a string of n pieces this way copies O(n²) bytes, all garbage but
the last.`,
		Detection: `A mostly short-lived site (less than half its bytes still live) charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes whose source line
concatenates strings with + or +=.`,
		Remedy: `Use a strings.Builder (Grow it when the size is known) or
strings.Join; for byte output, append to a []byte.`,
		Verify: `Take the profile again: the line should allocate once per result.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patConcat, func(s *HeapSite, f *Finding) {
				f.Remedy = "Build the string with a strings.Builder (call Grow when the size is known) or strings.Join instead of + and +=."
			})
		},
	})
}
