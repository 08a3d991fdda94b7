// Package memprof gives every example program the same evidence flags.
// With -memprofile every allocation is recorded (runtime.MemProfileRate = 1,
// so that the profile is the same from run to run) and an allocs profile is
// written when the program ends; with -trace an execution trace of the whole
// run is written.
package memprof

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

var (
	path      = flag.String("memprofile", "", "write an allocs profile (every allocation recorded) to this file at exit")
	tracePath = flag.String("trace", "", "write an execution trace of the run to this file")
)

// Start must be called right after flag.Parse. It returns the function that
// writes the profile; call it (or defer it) when the work is done.
func Start() (stop func()) {
	stopTrace := func() {}
	if *tracePath != "" {
		f, err := os.Create(*tracePath)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "trace:", err)
			os.Exit(1)
		}
		stopTrace = func() {
			trace.Stop()
			if err := f.Close(); err != nil {
				fmt.Fprintln(os.Stderr, "trace:", err)
				os.Exit(1)
			}
		}
	}
	if *path == "" {
		return stopTrace
	}
	runtime.MemProfileRate = 1
	return func() {
		stopTrace()
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
