// Command rss holds memory in the two ways the RSS rules look for. gen.sh
// runs each case under `gcdoctor run --out`, which keeps the gctrace, the
// RSS samples and meta.json as a bundle.
//
// held builds -mb MiB of data on the Go heap in 1 MiB chunks, drops it and
// idles for -idle, as a service does after a burst: no cycle runs after the
// drop, so the freed pages stay resident. With -fix it calls
// debug.FreeOSMemory() once after the drop. With -busy it keeps the data
// and works on it for -idle without allocating, as a server does that
// serves from memory: no cycle runs either, but the program is not idle.
//
// offheap maps -mb MiB of anonymous memory outside the Go heap (as cgo or
// mmap'd files do) and touches every page, then allocates 256 MiB of
// short-lived garbage in 64 KiB pieces, so that the gctrace shows a small
// heap while the RSS holds the mapping.
//
//	gcdoctor run --out held -- ./rss -case held
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
	"time"
)

var (
	data [][]byte
	sink []byte
)

func main() {
	name := flag.String("case", "", "held or offheap")
	mb := flag.Int("mb", 256, "MiB to hold")
	idle := flag.Duration("idle", 2*time.Second, "idle time after the burst (held)")
	fix := flag.Bool("fix", false, "return the memory after the burst (held)")
	busy := flag.Bool("busy", false, "keep the data and work on it instead of idling (held)")
	flag.Parse()
	switch *name {
	case "held":
		held(*mb, *idle, *fix, *busy)
	case "offheap":
		if err := offHeap(*mb); err != nil {
			fmt.Fprintln(os.Stderr, "rss:", err)
			os.Exit(1)
		}
	default:
		fmt.Fprintf(os.Stderr, "rss: unknown case %q\n", *name)
		os.Exit(2)
	}
}

func held(mb int, idle time.Duration, fix, busy bool) {
	for i := range mb {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = byte(i)
		}
		data = append(data, b)
	}
	if busy {
		var sum byte
		for end := time.Now().Add(idle); time.Now().Before(end); {
			for _, b := range data {
				for j := 0; j < len(b); j += 4096 {
					sum += b[j]
				}
			}
		}
		sink = []byte{sum}
		return
	}
	data = nil // the burst is over
	if fix {
		debug.FreeOSMemory()
	}
	time.Sleep(idle)
}

func offHeap(mb int) error {
	m, err := syscall.Mmap(-1, 0, mb<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return err
	}
	for j := 0; j < len(m); j += 4096 {
		m[j] = 1
	}
	for range 4096 {
		sink = make([]byte, 64<<10)
		sink[0] = m[len(sink)]
	}
	return syscall.Munmap(m)
}
