package diagnose

import "fmt"

// remedyHeapLargeBuffer is heap-large-buffer's remedy, in its documentation and its findings.
const remedyHeapLargeBuffer = "Reuse the buffer through a package-level " + remedyPoolPointers + ": Get it at the start, Put it back when done. Or size it to what is needed, or stream instead of buffering."

func init() {
	register(&Rule{
		ID: "heap-large-buffer", Title: "A large buffer is allocated again and again", Severity: Warning, Rank: 26,
		Evidence: "heap profile (+ escape analysis)",
		Rationale: `A buffer of 64 KiB or more allocated per request or per iteration and
dropped right after is the most expensive kind of garbage: the allocation
rate, and with it the GC frequency, grows by the buffer's size each time.
Values that large never live on the stack either: the compiler moves them to
the heap ("too large for stack").`,
		Detection: hotSiteDetection + ` whose objects
average ≥ 64 KiB, and, when the run's gctrace is there too, at least
four of its largest heap goals' worth of them: a sync.Pool refilling a
few buffers after a collection allocates at the same site, but does not
drive the collections.`,
		Remedy: remedyHeapLargeBuffer,
		Verify: `Take the profile again under the same load: the site should drop out of
the top, and gctrace's allocation rate fall with it.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindingsWhere(c, patLargeBuffer, remedyHeapLargeBuffer, func(s *HeapSite) bool { return drivesCycles(c, s) }, func(s *HeapSite, f *Finding) {
				f.Message += fmt.Sprintf(" Each object is %s on average.", bytesStr(int64(s.AvgSize)))
			})
		},
	})
}

// drivesCycles reports whether a site allocated enough to start several
// of the run's collections: four of its largest heap goals' worth. Without
// the run's gctrace it cannot be told, and every hot site counts.
func drivesCycles(c *evidenceView, s *HeapSite) bool {
	if c.in.Log == nil {
		return true
	}
	seg := c.in.Log.Busiest()
	if seg == nil || seg.Summary.MaxGoalMB <= 0 {
		return true
	}
	return s.AllocBytes >= 4*seg.Summary.MaxGoalMB<<20
}
