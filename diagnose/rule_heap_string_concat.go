package diagnose

// remedyHeapStringConcat is heap-string-concat's remedy, in its documentation and its findings.
const remedyHeapStringConcat = "Build the string with a strings.Builder (call Grow when the size is known) or strings.Join instead of + and +=; for byte output, append to a []byte."

func init() {
	register(&Rule{
		ID: "heap-string-concat", Title: "Strings are built with + or +=", Severity: Warning, Rank: 30,
		Evidence: "heap profile + source",
		Rationale: `Strings are immutable: s += x allocates a new string and copies both parts,
so building a string of n pieces this way copies O(n²) bytes, all garbage but
the last.`,
		Detection: hotSiteDetection + ` whose source line
concatenates strings with + or +=.`,
		Remedy: remedyHeapStringConcat,
		Verify: `Take the profile again: the line should allocate once per result.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patConcat, remedyHeapStringConcat, nil)
		},
	})
}
