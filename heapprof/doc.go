// Package heapprof reads Go heap and allocs profiles and ranks the places in
// the program's own code that allocate the garbage the collector has to
// clean up.
//
// It reads both shapes the runtime writes: the gzipped protocol buffer of
// runtime/pprof (debug=0, go test -memprofile, /debug/pprof/heap) and the
// legacy text of /debug/pprof/heap?debug=1, which the compiler's own
// -memprofile also writes. The text form carries no symbol table, only
// "#\t0xPC\tfunc+0xoff\tfile:line" comments, so [Read] symbolizes it from
// those comments; `go tool pprof` shows such profiles as <unknown> without
// the binary.
//
// An allocation sample records four values: the objects and bytes
// allocated since the program started (alloc_objects, alloc_space) and those
// still live at the last completed GC (inuse_objects, inuse_space). The
// difference is memory that became garbage: it is what drives GC frequency.
// [Site.ShortLived] gives that share for one site.
//
// Most allocations happen inside the standard library or the runtime:
// io.Copy's 32 KB buffer in io.copyBuffer, append in runtime.growslice,
// s += x in runtime.concatstrings, map literals in runtime.makemap. The
// place to fix is the caller, so [Profile.Top] attributes every sample to
// the first frame that belongs to the user's code (see [SiteOptions.User])
// and records the function that really allocated in [Site.Via], keeping the
// whole stack as evidence.
//
// Profiles are untrusted input. [Read] refuses what is not a profile from
// its first bytes, decompresses gzip itself within [MaxDecompressed] (a
// gzip bomb is refused before any of it is held), and reads at most
// [MaxSamples] samples, the heaviest, so that memory follows what is kept
// rather than what the input holds; [Profile.Caveats] and the header of
// [Top] say what was left out.
package heapprof
