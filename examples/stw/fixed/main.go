// Command fixed does the work of ../problem without parking thousands of
// deep goroutines or registering finalizers: the requests are handled by
// GOMAXPROCS workers, one after another, and resources are released by an
// explicit Close. There are few stacks to scan and no finalizers to queue,
// whatever the Go version.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

type resource struct {
	id   int
	data [8]int
}

// Close releases the resource; the owner calls it instead of relying on a
// finalizer.
func (r *resource) Close() { r.id = -1 }

// sink makes the garbage escape to the heap.
var sink []byte

// deep recurses until its frames use about kb KB of stack.
func deep(kb int) int {
	var frame [1000]byte // about 1 KB per level
	frame[kb%len(frame)] = byte(kb)
	if kb <= 1 {
		return int(frame[0])
	}
	return deep(kb-1) + int(frame[kb%len(frame)])
}

func main() {
	goroutines := flag.Int("goroutines", 10000, "requests (one parked goroutine each in ../problem)")
	stackKB := flag.Int("stack", 32, "stack depth of each request, in KB")
	finalizers := flag.Int("finalizers", 200000, "objects (with finalizers in ../problem)")
	garbage := flag.Int("garbage", 1024, "MB of garbage allocated meanwhile")
	flag.Parse()
	defer memprof.Start()()

	reqs := make(chan struct{}, *goroutines)
	for range *goroutines {
		reqs <- struct{}{}
	}
	close(reqs)
	var workers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		workers.Go(func() {
			for range reqs {
				deep(*stackKB)
			}
		})
	}

	keep := make([]*resource, 0, *finalizers)
	for i := range *finalizers {
		r := &resource{id: i}
		if i%2 == 0 {
			keep = append(keep, r)
		} else {
			r.Close()
		}
	}

	sum := 0
	for i := range *garbage * 16 {
		sink = make([]byte, 64<<10)
		sink[i%len(sink)] = byte(i)
		sum += int(sink[0])
	}
	workers.Wait()
	for _, r := range keep {
		r.Close()
	}
	fmt.Fprintln(os.Stderr, "checksum:", sum, len(keep))
}
