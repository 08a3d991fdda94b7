// Command headroom keeps a steady live heap (a ring of -live MiB of 64 KiB
// records, the oldest replaced by each new one) while it allocates -total
// MiB in all: the heap goal is then the live heap × (1 + GOGC/100), so the
// GOGC it runs with alone sets its peak heap. gen.sh records it under
// gcdoctor run at GOGC=1000 (a peak about 11× the live heap), at GOGC=200,
// and at GOGC=1000 with a GOMEMLIMIT.
package main

import (
	"flag"
	"fmt"
	"os"
)

const recordSize = 64 << 10

func main() {
	live := flag.Int("live", 16, "live heap, MiB")
	total := flag.Int("total", 1024, "MiB allocated in all")
	flag.Parse()
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
