// Command fixed serves the same requests over the same live index as
// ../problem, but reuses one scratch request (its slice and its items) from
// request to request: with almost no allocation the GC rarely needs to run,
// however large the live heap it would have to mark.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

type record struct {
	next  *record
	other *record
	key   int
	vals  [4]int
}

type item struct {
	rec  *record
	hits int
	tags [14]int
}

type request struct {
	items []*item
}

// index is the live heap: -nodes records linked to one another.
var index []*record

// build loads the index with the collector off, as services often do at
// start-up: cycles during the load would only mark a heap that is all live.
func build(n int) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	index = make([]*record, n)
	for i := range index {
		index[i] = &record{key: i}
		if i > 0 {
			index[i].next = index[i-1]
			index[i].other = index[(i*7919)%i]
		}
	}
}

// scratch is reused by every request (one goroutine serves them all; with
// several, keep one per worker or take them from a sync.Pool).
var scratch request

// serve handles one request: it looks up -items records, collecting them in
// the reused request.
func serve(id, items int) int {
	req := &scratch
	for len(req.items) < items {
		req.items = append(req.items, new(item))
	}
	req.items = req.items[:items]
	for j, it := range req.items {
		rec := index[(id*131+j)%len(index)]
		*it = item{rec: rec, hits: rec.key}
	}
	sum := 0
	for _, it := range req.items {
		sum += it.hits & 1
	}
	return sum
}

func main() {
	nodes := flag.Int("nodes", 1<<20, "records in the live index")
	requests := flag.Int("requests", 25000, "requests to serve")
	items := flag.Int("items", 256, "records looked up per request")
	flag.Parse()
	defer memprof.Start()()

	build(*nodes)
	sum := 0
	for i := range *requests {
		sum += serve(i, *items)
	}
	fmt.Fprintln(os.Stderr, "checksum:", sum, len(index))
}
