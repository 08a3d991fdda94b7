// Command problem is seed 002's service whose GC takes more than 10% of the
// CPU: a large live heap full of pointers (an in-memory index of -nodes
// records, each pointing to the next) that every cycle must mark, and a
// steady stream of requests that each allocate a fresh scratch structure
// with pointers. The allocation rate sets how often a cycle comes; the live
// heap sets what each costs.
//
// gcdoctor run reports gc-cpu-high.
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

// serve handles one request: it looks up -items records, collecting them in
// a freshly allocated request.
func serve(id, items int) int {
	req := &request{items: make([]*item, 0, items)}
	for j := range items {
		rec := index[(id*131+j)%len(index)]
		req.items = append(req.items, &item{rec: rec, hits: rec.key})
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
