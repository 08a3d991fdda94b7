// Command fixed does the work of ../problem with containers allocated once
// and reused from batch to batch: the slice is truncated (s[:0]), the map
// cleared (clear(m)), the line appended to a reused []byte. Each is first
// allocated at its final size, so none grows.
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

// scratch holds the containers reused by every batch.
type scratch struct {
	ids    []int
	byName map[string]int
	line   []byte
}

func (s *scratch) fillIDs(recs []record) []int {
	if cap(s.ids) < len(recs) {
		s.ids = make([]int, 0, len(recs))
	}
	s.ids = s.ids[:0]
	for _, r := range recs {
		s.ids = append(s.ids, r.id)
	}
	return s.ids
}

func (s *scratch) fillByName(recs []record) map[string]int {
	if s.byName == nil {
		s.byName = make(map[string]int, len(recs))
	}
	clear(s.byName)
	for _, r := range recs {
		s.byName[r.name] = r.score
	}
	return s.byName
}

// csvLine appends the names to the reused line; the caller uses the bytes
// before the next batch overwrites them.
func (s *scratch) csvLine(recs []record) []byte {
	s.line = s.line[:0]
	for _, r := range recs {
		s.line = append(s.line, r.name...)
		s.line = append(s.line, ',')
	}
	return s.line
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

	var sc scratch
	sum := 0
	for range *batches {
		sum += len(sc.fillIDs(recs)) + len(sc.fillByName(recs)) + len(sc.csvLine(recs[:len(recs)/16]))
	}
	fmt.Fprintln(os.Stderr, "checksum:", sum)
}
