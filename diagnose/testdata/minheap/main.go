// Command minheap allocates 64 KiB of garbage every -every while keeping
// almost nothing live, so that every cycle runs at the minimum heap goal
// (4 MB at GOGC=100): the pacer starts a cycle every 4 MB allocated. gen.sh
// records its gctrace at two rates: every 1ms (about 15 cycles a second)
// and every 4ms (about 4 a second, under the 5 a second that make
// gc-min-heap worth reporting).
//
//	GODEBUG=gctrace=1 ./minheap -every 1ms -for 3s 2> fast.log
package main

import (
	"flag"
	"time"
)

var sink []byte

func main() {
	every := flag.Duration("every", time.Millisecond, "time between allocations")
	total := flag.Duration("for", 3*time.Second, "how long to run")
	flag.Parse()
	end := time.Now().Add(*total)
	for time.Now().Before(end) {
		sink = make([]byte, 64<<10)
		time.Sleep(*every)
	}
}
