//go:build ignore
// +build ignore

// Command gen is the workload behind the gctrace fixtures in ../.
// gen.sh builds it with many Go releases and runs it under
// GODEBUG=gctrace=1 (and friends). It deliberately uses only APIs that
// exist since Go 1.2 so the same source builds with every toolchain.
//
// Usage: gen [alloc|scav|idle SECONDS]
//
//	alloc  churns short-lived maps and slices while a retained heap grows,
//	       calls runtime.GC() three times, then sleeps briefly.
//	scav   grows the heap to ~300 MB, drops it, collects a few times with
//	       pauses in between (so the background scavenger can run) and
//	       finally calls debug.FreeOSMemory().
//	idle   a small alloc phase, then stays idle for SECONDS so the runtime's
//	       periodic (2 minute) GC and the old scavenger ticks show up.
package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
)

var (
	live [][]byte         // retained, grows over time
	keep map[int]string   // retained map, grows over time
	sink map[string][]int // short-lived garbage
	big  [][]byte         // scav mode: large, later dropped
	text []string         // short-lived garbage
)

func churn(round, n int) {
	m := make(map[string][]int, 64)
	for i := 0; i < n; i++ {
		k := strconv.Itoa(round*1000003 + i)
		m[k] = make([]int, 4+i%61)
	}
	sink = m
	s := make([]string, 0, 16)
	for i := 0; i < n/4; i++ {
		s = append(s, strconv.Itoa(i)+"-"+strconv.Itoa(round))
	}
	text = s
}

func alloc(rounds int) {
	if keep == nil {
		keep = make(map[int]string)
	}
	for r := 0; r < rounds; r++ {
		churn(r, 20000)
		// Retained, growing live heap: ~192 KiB of pointer-free data and
		// 500 map entries per round.
		live = append(live, make([]byte, 192<<10))
		for i := 0; i < 500; i++ {
			keep[r*500+i] = strconv.Itoa(r) + "/" + strconv.Itoa(i)
		}
		if r == rounds/3 || r == 2*rounds/3 {
			runtime.GC()
		}
	}
	runtime.GC()
}

func touch(b []byte) {
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
}

func scav() {
	alloc(20)
	for i := 0; i < 300; i++ {
		b := make([]byte, 1<<20)
		touch(b)
		big = append(big, b)
		if i%10 == 0 {
			churn(i, 2000)
		}
	}
	big = nil
	runtime.GC()
	for i := 0; i < 6; i++ {
		// Keep allocating a little so that regular cycles run while the
		// background scavenger returns the dropped memory.
		for j := 0; j < 10; j++ {
			churn(j, 5000)
		}
		time.Sleep(500 * time.Millisecond)
		runtime.GC()
	}
	debug.FreeOSMemory()
	time.Sleep(200 * time.Millisecond)
}

func main() {
	mode := "alloc"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "alloc":
		alloc(120)
		time.Sleep(300 * time.Millisecond)
	case "scav":
		scav()
	case "idle":
		secs := 130
		if len(os.Args) > 2 {
			if n, err := strconv.Atoi(os.Args[2]); err == nil {
				secs = n
			}
		}
		alloc(30)
		time.Sleep(time.Duration(secs) * time.Second)
	default:
		os.Stderr.WriteString("usage: gen [alloc|scav|idle SECONDS]\n")
		os.Exit(2)
	}
}
