// Command fixed keeps the 256 KiB scratch buffer in a value that lives as
// long as the work, so calls reuse it instead of allocating it.
package main

import (
	"flag"
	"fmt"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

// summer owns the scratch buffer; one summer serves every call.
type summer struct {
	scratch []byte
}

func (s *summer) checksum(data []byte) uint32 {
	n := copy(s.scratch, data)
	var sum uint32
	for _, b := range s.scratch[:n] {
		sum = sum*31 + uint32(b)
	}
	return sum
}

func main() {
	flag.Parse()
	defer memprof.Start()()
	s := &summer{scratch: make([]byte, 256<<10)}
	data := make([]byte, 64<<10)
	var total uint32
	for i := range 2000 {
		data[i%len(data)] = byte(i)
		total += s.checksum(data)
	}
	fmt.Println("checksum", total)
}
