// Command scenarios reproduces allocation problems that make the garbage
// collector run too often, each with its usual fix, and writes an allocs
// profile of the run. Lines marked "// problem:NAME" are where the problem
// is; the heapprof tests expect them at the top of the profile without
// -fix and nowhere near it with -fix.
//
//	go run ./heapprof/testdata/scenarios -case bigbuf [-fix] -o allocs.pprof
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

var cases = map[string]func(fix bool){
	"bigbuf": bigbuf,
	"copy":   copyCase,
	"append": appendCase,
	"concat": concatCase,
}

func main() {
	// Record every allocation so the profile is exact and the test
	// deterministic; real programs sample one per 512 KiB.
	runtime.MemProfileRate = 1
	name := flag.String("case", "", "scenario to run: bigbuf, copy, append, concat")
	fix := flag.Bool("fix", false, "run the fixed version")
	out := flag.String("o", "allocs.pprof", "allocs profile to write")
	flag.Parse()
	run := cases[*name]
	if run == nil {
		fmt.Fprintf(os.Stderr, "scenarios: unknown case %q\n", *name)
		os.Exit(2)
	}
	run(*fix)
	// The profile reflects allocations as of the last completed GC.
	runtime.GC()
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scenarios:", err)
		os.Exit(1)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, "scenarios:", err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "scenarios:", err)
		os.Exit(1)
	}
}
