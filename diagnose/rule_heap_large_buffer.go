package diagnose

import "fmt"

func init() {
	register(&Rule{
		ID: "heap-large-buffer", Title: "A large buffer is allocated again and again", Severity: Warning, Rank: 26,
		Evidence: "heap profile (+ escape analysis)",
		Rationale: `A buffer of 64 KiB or more allocated per request or per iteration and
dropped right after is the most expensive kind of garbage: the allocation
rate, and with it the GC frequency, grows by the buffer's size each time.
Values that large never live on the stack either: the compiler moves them to
the heap ("too large for stack").`,
		Detection: `A mostly short-lived site (less than half its bytes still live) charged with ≥ 5% (and ≥ 1 MiB) of the profile's allocated bytes whose objects
average ≥ 64 KiB.`,
		Remedy: `Reuse the buffer: a package-level sync.Pool whose New returns a pointer
(*[]byte, not []byte: putting a slice in an interface allocates, staticcheck
SA6002), Get at the start of the request, Put when done. Or size the buffer
to what the request needs, or stream instead of buffering.`,
		Verify: `Take the profile again under the same load: the site should drop out of
the top, and gctrace's allocation rate fall with it.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patLargeBuffer, func(s *HeapSite, f *Finding) {
				f.Message += fmt.Sprintf(" Each object is %s on average.", bytesStr(int64(s.AvgSize)))
				f.Remedy = "Reuse the buffer through a package-level sync.Pool that stores pointers (*[]byte: a []byte put in an interface allocates again, staticcheck SA6002): Get it at the start, Put it back when done. Or size it to what is needed, or stream instead of buffering."
			})
		},
	})
}
