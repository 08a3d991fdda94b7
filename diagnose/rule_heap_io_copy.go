package diagnose

func init() {
	register(&Rule{
		ID: "heap-io-copy", Title: "io.Copy allocates a fresh 32 KB buffer each call", Severity: Warning, Rank: 27,
		Evidence: "heap profile",
		Rationale: `io.Copy and io.ReadAll allocate a buffer each time they are called unless
one side can copy directly (the source implements io.WriterTo or the
destination io.ReaderFrom). On a hot path that is 32 KB of garbage per call,
hidden inside the standard library, so the profile charges io.copyBuffer.`,
		Detection: `A mostly short-lived site (less than half its bytes still live) charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes whose allocation happens in
io.copyBuffer, io.Copy or io.ReadAll called from the user's line.`,
		Remedy: `Pass a pooled buffer to io.CopyBuffer (a sync.Pool of *[]byte), or make one
side implement WriterTo/ReaderFrom (for example, copy into an *os.File or a
*bytes.Buffer, which do). For io.ReadAll into a known size, read into a
preallocated buffer.`,
		Verify: `Take the profile again: io.copyBuffer should no longer be charged to the line.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patIOCopy, func(s *HeapSite, f *Finding) {
				f.Remedy = "Give io.CopyBuffer a buffer from a sync.Pool of *[]byte instead of letting io.Copy allocate one per call, or copy into something that implements io.ReaderFrom (an *os.File, a *bytes.Buffer) so no buffer is needed."
			})
		},
	})
}
