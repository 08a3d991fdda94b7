// Command gogc is seed 000's third example: the same work run with GOGC=1000
// (the problem) and with the default GOGC=100 (the fix). It keeps a steady
// live set (a ring of -live MB of 64 KB records, the oldest replaced by each
// new one) and allocates -total MB in all. With GOGC=1000 the heap may grow
// to 11 times the live set before a cycle starts: far fewer cycles, but a
// peak heap (and RSS) several times larger for the same work.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

const recordSize = 64 << 10

func main() {
	live := flag.Int("live", 16, "live set in MB")
	total := flag.Int("total", 1024, "MB allocated in all")
	flag.Parse()
	defer memprof.Start()()

	ring := make([][]byte, *live<<20/recordSize)
	sum := 0
	for i := range *total << 20 / recordSize {
		rec := make([]byte, recordSize)
		for j := 0; j < len(rec); j += 64 {
			rec[j] = byte(i + j)
		}
		ring[i%len(ring)] = rec
		sum += int(rec[0])
	}
	fmt.Fprintln(os.Stderr, "checksum:", sum)
}
