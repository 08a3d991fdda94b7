// Package memprof gives every example program the same -memprofile flag:
// when it is set, every allocation is recorded (runtime.MemProfileRate = 1,
// so that the profile is the same from run to run) and an allocs profile is
// written when the program ends.
package memprof

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

var path = flag.String("memprofile", "", "write an allocs profile (every allocation recorded) to this file at exit")

// Start must be called right after flag.Parse. It returns the function that
// writes the profile; call it (or defer it) when the work is done.
func Start() (stop func()) {
	if *path == "" {
		return func() {}
	}
	runtime.MemProfileRate = 1
	return func() {
		runtime.GC()
		f, err := os.Create(*path)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "memprofile:", err)
			os.Exit(1)
		}
	}
}
