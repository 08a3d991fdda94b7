package diagnose

// remedyHeapIOCopy is heap-io-copy's remedy, in its documentation and its findings.
const remedyHeapIOCopy = "Give io.CopyBuffer a buffer from a " + remedyPoolPointers + " instead of letting io.Copy allocate one per call, or copy into something that implements io.ReaderFrom (an *os.File, a *bytes.Buffer) so no buffer is needed. For io.ReadAll of a known size, read into a preallocated buffer."

func init() {
	register(&Rule{
		ID: "heap-io-copy", Title: "io.Copy allocates a fresh 32 KB buffer each call", Severity: Warning, Rank: 27,
		Evidence: "heap profile",
		Rationale: `io.Copy and io.ReadAll allocate a buffer each time they are called unless
one side can copy directly (the source implements io.WriterTo or the
destination io.ReaderFrom). On a hot path that is 32 KB of garbage per call,
hidden inside the standard library, so the profile charges io.copyBuffer.`,
		Detection: hotSiteDetection + ` whose allocation happens in
io.copyBuffer, io.Copy or io.ReadAll called from the user's line.`,
		Remedy: remedyHeapIOCopy,
		Verify: `Take the profile again: io.copyBuffer should no longer be charged to the line.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patIOCopy, remedyHeapIOCopy, nil)
		},
	})
}
