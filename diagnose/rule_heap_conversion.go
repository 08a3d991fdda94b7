package diagnose

func init() {
	register(&Rule{
		ID: "heap-conversion", Title: "[]byte and string conversions copy on a hot path", Severity: Info, Rank: 31,
		Evidence: "heap profile + source",
		Rationale: `string(b) and []byte(s) copy their argument (except in the few cases the
compiler proves safe, like map lookups and comparisons). On a hot path each
conversion is a fresh allocation.`,
		Detection: `A mostly short-lived site (less than half its bytes still live) charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes whose source line converts
between string, []byte or []rune.`,
		Remedy: `Keep the data in one form: use the bytes package functions on []byte,
write []byte straight to the io.Writer, look up maps with m[string(b)] (no
copy), or use strings.Builder to produce the final string once.`,
		Verify: `Take the profile again and compare the line's bytes.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patConversion, func(s *HeapSite, f *Finding) {
				f.Remedy = "Avoid the round trip: keep the data as []byte (bytes package, write it straight to the io.Writer) or as string, and convert once at the edge."
			})
		},
	})
}
