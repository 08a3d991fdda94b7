// Command problem is seed 001's program with long stop-the-world pauses on
// old Go versions: -goroutines goroutines parked with deep stacks (about
// -stack KB each) and -finalizers objects with finalizers, while the main
// goroutine allocates -garbage MB so that cycles keep running. On Go 1.5–1.6
// mark termination scanned stacks and finalizers inside the pause; since
// Go 1.7–1.8 stacks are scanned concurrently and the pauses stay short.
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

// sink makes the garbage escape to the heap.
var sink []byte

// deep recurses until its frames use about kb KB of stack, then parks.
func deep(kb int, wait <-chan struct{}) int {
	var frame [1000]byte // about 1 KB per level
	frame[kb%len(frame)] = byte(kb)
	if kb <= 1 {
		<-wait
		return int(frame[0])
	}
	return deep(kb-1, wait) + int(frame[kb%len(frame)])
}

func main() {
	goroutines := flag.Int("goroutines", 10000, "parked goroutines")
	stackKB := flag.Int("stack", 32, "stack depth of each parked goroutine, in KB")
	finalizers := flag.Int("finalizers", 200000, "objects with finalizers")
	garbage := flag.Int("garbage", 1024, "MB of garbage allocated meanwhile")
	flag.Parse()
	defer memprof.Start()()

	wait := make(chan struct{})
	var parked sync.WaitGroup
	for range *goroutines {
		parked.Go(func() { deep(*stackKB, wait) })
	}

	keep := make([]*resource, 0, *finalizers)
	for i := range *finalizers {
		r := &resource{id: i}
		runtime.SetFinalizer(r, func(r *resource) { r.id = -1 })
		if i%2 == 0 {
			keep = append(keep, r)
		}
	}

	sum := 0
	for i := range *garbage * 16 {
		sink = make([]byte, 64<<10)
		sink[i%len(sink)] = byte(i)
		sum += int(sink[0])
	}
	close(wait)
	parked.Wait()
	fmt.Fprintln(os.Stderr, "checksum:", sum, len(keep))
}
