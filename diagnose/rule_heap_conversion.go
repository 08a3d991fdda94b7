package diagnose

// remedyHeapConversion is heap-conversion's remedy, in its documentation and its findings.
const remedyHeapConversion = "Avoid the round trip: keep the data as []byte (bytes package, write it straight to the io.Writer) or as string, and convert once at the edge; a map lookup m[string(b)] does not copy."

func init() {
	register(&Rule{
		ID: "heap-conversion", Title: "[]byte and string conversions copy on a hot path", Severity: Info, Rank: 31,
		Evidence: "heap profile + source",
		Rationale: `string(b) and []byte(s) copy their argument (except in the few cases the
compiler proves safe, like map lookups and comparisons). On a hot path each
conversion is a fresh allocation.`,
		Detection: hotSiteDetection + ` whose source line converts
between string, []byte or []rune.`,
		Remedy: remedyHeapConversion,
		Verify: `Take the profile again and compare the line's bytes.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patConversion, remedyHeapConversion, nil)
		},
	})
}
