// Command fixed goes through the same peak as ../problem, but once the burst
// is over it calls debug.FreeOSMemory() once: a collection, then the freed
// pages are returned to the operating system at once.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"
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

// afterPeak returns the memory of the burst once it is over.
func afterPeak() { debug.FreeOSMemory() }
