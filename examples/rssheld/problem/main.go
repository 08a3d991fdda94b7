// Command problem is seed 003's memory held after a peak: it builds -peak MB
// of data (in 1 MB chunks), drops it, and then idles for -idle, as a
// service does after a burst. No cycle runs after the drop, so the heap goal
// stays where the peak put it and the freed pages stay resident.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

var data [][]byte

func main() {
	peak := flag.Int("peak", 300, "MB allocated and held at the peak")
	idle := flag.Duration("idle", 2*time.Second, "idle time after the peak")
	flag.Parse()
	defer memprof.Start()()

	sum := 0
	for i := range *peak {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = byte(i)
		}
		data = append(data, b)
		sum += int(b[0])
	}
	data = nil // the burst is over
	afterPeak()
	time.Sleep(*idle)
	fmt.Fprintln(os.Stderr, "checksum:", sum)
}

// afterPeak is what the program does once the burst is over: nothing.
func afterPeak() {}
