// Command alloc allocates 2 GiB in 64 KiB pieces, keeping 8 MiB live, and
// prints its last line with a terminal escape in it, for watch's tests.
package main

import "fmt"

func main() {
	keep := make([][]byte, 128)
	for i := range 32 << 10 {
		keep[i%len(keep)] = make([]byte, 64<<10)
	}
	fmt.Println("done \x1b[2J")
}
