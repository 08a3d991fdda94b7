package diagnose

// Advice that several rules give is stated once, here: the rules'
// documentation and findings use these, so that the same advice cannot
// drift apart from one rule to the next. Where a rule would repeat another
// rule's whole remedy, it names that rule instead ("see alloc-churn").

// pprofAllocSpace is the command that ranks sites by the bytes they
// allocate.
const pprofAllocSpace = "`go tool pprof -sample_index=alloc_space`"

// remedyReuse is what to do about short-lived garbage: alloc-churn's
// remedy, which gc-cpu-high gives too when churn is what costs.
const remedyReuse = "Reuse instead of reallocating: find the sites that allocate the most bytes with a heap profile (" +
	pprofAllocSpace + "); keep large buffers in a sync.Pool (store pointers such as *[]byte), give io.CopyBuffer a pooled buffer, preallocate slices and maps, use strings.Builder. " +
	"Raising GOGC would only pile the same garbage into fewer, larger cycles."

// remedyReuseBuffers is the short form of remedyReuse, for a finding that
// has already said where the allocations are.
const remedyReuseBuffers = "reuse buffers with sync.Pool, preallocate slices and maps"

// remedyPoolPointers is the pool that reuses a buffer without allocating
// again on every Put.
const remedyPoolPointers = "sync.Pool that stores pointers (*[]byte: a []byte put in an interface allocates again, staticcheck SA6002)"

// remedyHeadroom gives the collector room to finish marking before the
// heap reaches its goal.
const remedyHeadroom = "give the GC more headroom with a higher GOGC or GOMEMLIMIT"

// docReturnMemory is how freed memory goes back to the operating system,
// for the documentation of the rules about memory held after a peak.
const docReturnMemory = `To return freed memory to the OS after a one-off peak, call
debug.FreeOSMemory() once after it; on Go ≥ 1.19 a GOMEMLIMIT also makes the
scavenger return freed pages as the limit nears.`

// returnMemory is docReturnMemory for a finding, for the program's Go
// version.
func returnMemory(v goRange) string {
	r := "To hand memory back after a one-off peak, call debug.FreeOSMemory() once"
	if v.atLeast(19) != no {
		r += ", or set GOMEMLIMIT"
	}
	return r + "."
}
