// Command problem is seed 003's growing containers: a slice filled by append
// from empty, a map filled without a size hint and a string built with +=,
// each in a loop whose length is known before it starts, for -batches
// batches of -n records (the line of names is built from a sixteenth of
// them: += is quadratic).
//
// gcdoctor heap reports heap-slice-growth, heap-map-growth and
// heap-string-concat; gcdoctor lint reports appendprealloc, mapprealloc and
// stringconcatloop.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

type record struct {
	id    int
	name  string
	score int
}

func ids(recs []record) []int {
	var out []int
	for _, r := range recs {
		out = append(out, r.id)
	}
	return out
}

func byName(recs []record) map[string]int {
	m := map[string]int{}
	for _, r := range recs {
		m[r.name] = r.score
	}
	return m
}

func csvLine(recs []record) string {
	s := ""
	for _, r := range recs {
		s += r.name + ","
	}
	return s
}

func main() {
	batches := flag.Int("batches", 200, "batches to process")
	n := flag.Int("n", 2000, "records per batch")
	flag.Parse()

	recs := make([]record, *n)
	for i := range recs {
		recs[i] = record{id: i, name: "user" + strconv.Itoa(i), score: i % 97}
	}
	defer memprof.Start()()

	sum := 0
	for range *batches {
		sum += len(ids(recs)) + len(byName(recs)) + len(csvLine(recs[:len(recs)/16]))
	}
	fmt.Fprintln(os.Stderr, "checksum:", sum)
}
