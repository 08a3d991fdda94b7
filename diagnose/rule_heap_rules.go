package diagnose

import "fmt"

// The heap rules judge the sites of an allocation profile. They share one
// classifier (classify) and one way of reporting (heapFindings); each rule
// is one pattern with its own remedy.

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
	register(&Rule{
		ID: "heap-slice-growth", Title: "A slice grows by append, reallocating as it goes", Severity: Warning, Rank: 28,
		Evidence: "heap profile + source",
		Rationale: `append doubles a slice's backing array when it is full (then grows it by
about 1.25×): filling a slice of n elements from empty allocates about log n
arrays and copies every element several times, all of it garbage but the
last array.`,
		Detection: `A mostly short-lived site (less than half its bytes still live) charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes whose source line calls
append (the profile charges runtime.growslice to that line).`,
		Remedy: `When the final length is known or can be estimated, allocate once:
make([]T, 0, n) before the loop. When slices are built per request, reuse one
with s = s[:0].`,
		Verify: `Take the profile again: the append line should allocate one array per
slice, a fraction of the bytes it did.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patAppend, func(s *HeapSite, f *Finding) {
				f.Remedy = "Preallocate: make([]T, 0, n) with the known or estimated final length before the loop, or reuse a slice with s = s[:0]."
			})
		},
	})
	register(&Rule{
		ID: "heap-map-growth", Title: "A map grows, rehashing as it goes", Severity: Warning, Rank: 29,
		Evidence: "heap profile + source",
		Rationale: `A map created without a size hint grows in steps, allocating new bucket
arrays and moving every entry each time.`,
		Detection: `A mostly short-lived site (less than half its bytes still live) charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes whose source line creates a
map or assigns to one.`,
		Remedy: `Give make a size hint when the number of entries is known: make(map[K]V, n).
For maps rebuilt per request, clear(m) and reuse one.`,
		Verify: `Take the profile again and compare the line's bytes.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patMap, func(s *HeapSite, f *Finding) {
				f.Remedy = "Size the map when it is created: make(map[K]V, n). If it is rebuilt per request, clear(m) and reuse it."
			})
		},
	})
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
	register(&Rule{
		ID: "heap-fmt", Title: "fmt formats on a hot path", Severity: Info, Rank: 32,
		Evidence: "heap profile + source",
		Rationale: `fmt.Sprintf and friends box their arguments in interfaces and build the
result in a fresh string; for simple conversions strconv does the same with
less garbage, or none when appending to a buffer.`,
		Detection: `A mostly short-lived site (less than half its bytes still live) charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes whose allocation happens in
fmt or whose source line calls fmt.Sprint, Sprintf, Sprintln or Errorf.`,
		Remedy: `Use strconv (Itoa, FormatInt, AppendInt into a reused []byte) for number
conversions; build composite strings with a strings.Builder.`,
		Verify: `Take the profile again and compare the line's bytes.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patFmt, func(s *HeapSite, f *Finding) {
				f.Remedy = "Replace fmt.Sprintf for simple conversions with strconv (Itoa, FormatInt, or AppendInt into a reused []byte); use a strings.Builder for composite strings."
			})
		},
	})
	register(&Rule{
		ID: "heap-large-value", Title: "A large local value is moved to the heap", Severity: Warning, Rank: 33,
		Evidence: "heap profile + escape analysis",
		Rationale: `The compiler keeps values on the stack only up to a size limit (64 KiB for
implicit variables, 10 MiB for explicit ones in current versions); a larger
local array or struct is allocated on the heap on every call ("too large for
stack").`,
		Detection: `A mostly short-lived site (less than half its bytes still live) charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes where escape analysis says
a value on that line is too large for the stack.`,
		Remedy: `Reuse the value through a sync.Pool of pointers, allocate it once per
long-lived object instead of per call, or shrink it.`,
		Verify: `Take the profile again and run escape analysis: the line should no longer
allocate per call.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patLargeValue, func(s *HeapSite, f *Finding) {
				f.Remedy = "The value is too large for the stack, so every call allocates it: reuse it through a sync.Pool of pointers or keep it in a long-lived object."
			})
		},
	})
	register(&Rule{
		ID: "heap-boxing", Title: "Values escape to the heap through interfaces or closures", Severity: Info, Rank: 33,
		Evidence: "heap profile + escape analysis",
		Rationale: `Converting a value to an interface (passing it as any, storing it in an
interface-typed field, logging it with fmt) or capturing a variable in a
closure that outlives the call makes the compiler allocate it on the heap.
On a hot line each call is a small allocation, and they add up.`,
		Detection: `A site charged with ≥ 5% (and ≥ 1 MiB) of the allocated bytes whose escape
analysis (gcdoctor heap --source) gives "interface-converted" or "captured
by a closure" as the reason.`,
		Remedy: `Keep the value concrete on the hot path: use typed functions instead of
any, avoid storing small values in interfaces, pass pointers to existing
values, or restructure the closure so it does not outlive the call (or
captures less).`,
		Verify: `Run escape analysis again (gcdoctor heap --source): the line should no
longer escape, and the profile should no longer charge it.`,
		checkAll: func(c *evidenceView) []*Finding {
			return heapFindings(c, patBoxing, func(s *HeapSite, f *Finding) {
				f.Remedy = "Keep the value concrete on the hot path: typed functions instead of any, no small values stored in interfaces, and closures that do not outlive the call or capture less."
			})
		},
	})
	register(&Rule{
		ID: "heap-hot-site", Title: "One line allocates a large share of the bytes", Severity: Info, Rank: 34,
		Evidence: "heap profile",
		Rationale: `Allocation rate drives GC frequency: a line that accounts for a large share
of all allocated bytes is where reducing allocation pays most, whatever the
reason it allocates.`,
		Detection: `A user site charged with ≥ 20% of the allocated bytes that no more specific
heap rule explains (the source line may not be readable here).`,
		Remedy: `Look at the line and at what it allocates (the profile's stack; escape
analysis with gcdoctor heap --source); reuse, preallocate or avoid the
allocation.`,
		Verify: `Take the profile again and compare the line's share.`,
		checkAll: func(c *evidenceView) []*Finding {
			fs := heapFindings(c, patOther, func(s *HeapSite, f *Finding) {
				f.Remedy = "Look at what the line allocates (the stack in the profile, and escape analysis with --source) and reuse, preallocate or avoid it."
			})
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
