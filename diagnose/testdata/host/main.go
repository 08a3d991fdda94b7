// Command host makes the runs that the host rules are tested on, each
// recorded by gen.sh under gcdoctor run:
//
//   - batch: a compile-like job that builds a pointer-rich tree for -for,
//     growing its live heap, then exits with status 0;
//
//   - pauses: a steady allocator (a fixed live heap and short-lived
//     garbage) for -for, whose collections stop the world many times a
//     second; gen.sh runs it on a quiet host and beside CPU hogs.
//
//     go run ./diagnose/testdata/host -case batch -for 12s
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

// node is a tree node with pointers, as a compiler's syntax tree is.
type node struct {
	left, right *node
	name        string
	val         [4]int64
}

// grow builds a tree of n nodes, with garbage along the way.
func grow(n int) *node {
	var root *node
	for i := range n {
		nd := &node{name: fmt.Sprint("n", i), left: root}
		if i%3 == 0 {
			nd.right = &node{name: "garbage"} // dropped at the next node
			nd.right = nil
		}
		root = nd
	}
	return root
}

func batch(d time.Duration) {
	var kept []*node
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		kept = append(kept, grow(20000))
		time.Sleep(20 * time.Millisecond) // reading the next input
	}
	fmt.Fprintf(os.Stderr, "host: batch kept %d trees\n", len(kept))
}

var sink []byte

func pauses(d time.Duration) {
	live := make([]*node, 0, 64)
	for range 64 {
		live = append(live, grow(5000))
	}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for range 100 {
			sink = make([]byte, 64<<10)
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "host: pauses kept %d trees\n", len(live))
}

func main() {
	name := flag.String("case", "", "batch or pauses")
	d := flag.Duration("for", 10*time.Second, "how long to run")
	flag.Parse()
	switch *name {
	case "batch":
		batch(*d)
	case "pauses":
		pauses(*d)
	default:
		fmt.Fprintf(os.Stderr, "host: unknown case %q\n", *name)
		os.Exit(2)
	}
}
