package diagnose

// remedyHeapFmt is heap-fmt's remedy, in its documentation and its findings.
const remedyHeapFmt = "Replace fmt.Sprintf for simple conversions with strconv (Itoa, FormatInt, or AppendInt into a reused []byte); use a strings.Builder for composite strings."

func init() {
	register(&Rule{
		ID: "heap-fmt", Title: "fmt formats on a hot path", Severity: Info, Rank: 32,
		Evidence: "heap profile + source",
		Rationale: `fmt.Sprintf and friends box their arguments in interfaces and build the
result in a fresh string; for simple conversions strconv does the same with
less garbage, or none when appending to a buffer.`,
		Detection: hotSiteDetection + ` whose allocation happens in
fmt or whose source line calls fmt.Sprint, Sprintf, Sprintln or Errorf.`,
		Remedy: remedyHeapFmt,
		Verify: `Take the profile again and compare the line's bytes.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patFmt, remedyHeapFmt, nil)
		},
	})
}
