// Command problem is the case from a well-known article on Go memory: a
// local value over the compiler's stack limit is moved to the heap, so
// every call allocates it. Here each call checksums data through a 256 KiB
// scratch array declared as a local variable.
//
// gcdoctor heap --source reports heap-large-value (the compiler: "moved to
// heap ... too large for stack").
package main

import (
	"flag"
	"fmt"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

// checksum copies data through a local scratch array; at 256 KiB the array
// is too large for the stack and every call allocates it.
func checksum(data []byte) uint32 {
	var scratch [256 << 10]byte
	n := copy(scratch[:], data)
	var sum uint32
	for _, b := range scratch[:n] {
		sum = sum*31 + uint32(b)
	}
	return sum
}

func main() {
	flag.Parse()
	defer memprof.Start()()
	data := make([]byte, 64<<10)
	var total uint32
	for i := range 2000 {
		data[i%len(data)] = byte(i)
		total += checksum(data)
	}
	fmt.Println("checksum", total)
}
