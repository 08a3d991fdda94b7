// Command workers is seed 004's pipeline: -jobs jobs, each some CPU work (a
// hash over a buffer) and a write system call, spread over -workers worker
// goroutines. With many more workers than GOMAXPROCS (the problem, e.g.
// -workers 256 on 2 CPUs) the workers mostly wait for a P and contend on the
// shared output; with -workers equal to GOMAXPROCS (the fix) they do not.
// -trace FILE writes an execution trace of the run, where that shows.
// Without -workers, the count is $WORKERS when set (as `gcdoctor workers
// --verify --size-env WORKERS` gives it), else GOMAXPROCS.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

func main() {
	n := runtime.GOMAXPROCS(0)
	if v, err := strconv.Atoi(os.Getenv("WORKERS")); err == nil && v > 0 {
		n = v
	}
	workers := flag.Int("workers", n, "worker goroutines (default $WORKERS, else GOMAXPROCS)")
	jobs := flag.Int("jobs", 20000, "jobs to process")
	size := flag.Int("size", 8<<10, "bytes hashed per job")
	flag.Parse()
	defer memprof.Start()() // -memprofile and -trace

	out, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer out.Close()

	in := make(chan int, *workers)
	var wg sync.WaitGroup
	for range *workers {
		wg.Go(func() {
			buf := make([]byte, *size)
			for j := range in {
				for i := range buf {
					buf[i] = byte(i + j)
				}
				sum := sha256.Sum256(buf)
				if _, err := out.Write(sum[:]); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
			}
		})
	}
	for j := range *jobs {
		in <- j
	}
	close(in)
	wg.Wait()
	fmt.Fprintln(os.Stderr, "jobs:", *jobs, "workers:", *workers)
}
