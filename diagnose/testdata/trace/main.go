// Command trace makes the execution traces the trace rules are tested on:
// each case is one way of running work on goroutines, run as the problem
// or, with -fix, as its usual fix, and traced from start to end with
// runtime/trace. gen.sh records every case on 2 CPUs (GOMAXPROCS=2).
//
//	go run ./diagnose/testdata/trace -case explosion [-fix] -o explosion.trace
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/trace"
	"sync"
	"time"
)

var cases = map[string]func(fix bool){
	"explosion": explosion,
	"slices":    slices,
	"starved":   starved,
	"iobound":   ioBound,
	"stw":       stopTheWorld,
	"assist":    assist,
}

// setups prepare a case before the trace starts.
var setups = map[string]func(){
	"assist": buildLive,
}

func main() {
	name := flag.String("case", "", "the scheduling pattern to run")
	fix := flag.Bool("fix", false, "run the fixed version")
	out := flag.String("o", "trace.out", "execution trace to write")
	flag.Parse()
	run := cases[*name]
	if run == nil {
		fmt.Fprintf(os.Stderr, "trace: unknown case %q\n", *name)
		os.Exit(2)
	}
	if setup := setups[*name]; setup != nil {
		setup()
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trace:", err)
		os.Exit(1)
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "trace:", err)
		os.Exit(1)
	}
	run(*fix)
	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "trace:", err)
		os.Exit(1)
	}
}

var sink [32]byte

// work hashes n KiB: CPU work that makes no garbage.
func work(n int) [32]byte {
	var buf [1024]byte
	h := sha256.New()
	for range n {
		h.Write(buf[:])
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// explosion starts a goroutine per item, all at once; -fix starts them in
// batches of 8 and waits for each batch.
func explosion(fix bool) {
	const items, batch = 1000, 8
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := work(16)
			mu.Lock()
			sink = s
			mu.Unlock()
		}()
		if fix && i%batch == batch-1 {
			wg.Wait()
		}
	}
	wg.Wait()
}

// slices starts a goroutine per item, all at once, for items that each
// take longer than the scheduler's 10 ms time slice: preempted, they take
// turns on the Ps and end together, living through the trace like the
// workers of a pool. -fix runs the same items on as many workers as Ps.
func slices(fix bool) {
	const items, kib = 128, 16 << 10
	if fix {
		pool(runtime.GOMAXPROCS(0), items, kib, 0)
		return
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range items {
		wg.Go(func() {
			s := work(kib)
			mu.Lock()
			sink = s
			mu.Unlock()
		})
	}
	wg.Wait()
}

// pool runs jobs on a fixed pool of workers; each job does cpu KiB of
// hashing and then waits for wait (the I/O).
func pool(workers, jobs, cpu int, wait time.Duration) {
	ch := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range ch {
				s := work(cpu)
				if wait > 0 {
					time.Sleep(wait)
				}
				mu.Lock()
				sink = s
				mu.Unlock()
			}
		}()
	}
	for i := range jobs {
		ch <- i
	}
	close(ch)
	wg.Wait()
}

// starved runs CPU-bound jobs on 64 workers; -fix on as many as there are
// Ps.
func starved(fix bool) {
	workers := 64
	if fix {
		workers = runtime.GOMAXPROCS(0)
	}
	pool(workers, 1000, 16, 0)
}

// ioBound runs jobs that mostly wait on 2 workers; -fix on 24, about what
// their time split calls for.
func ioBound(fix bool) {
	workers := 2
	if fix {
		workers = 24
	}
	pool(workers, 200, 256, 2*time.Millisecond)
}

// spin computes without calling anything: before Go 1.14, or with
// GODEBUG=asyncpreemptoff=1, nothing can preempt it.
func spin(n int) int {
	x := 1
	for i := range n {
		x = x*31 + i ^ x>>7
	}
	return x
}

// spinYield is spin with a call to the scheduler every 2^20 rounds, the
// fix for loops that cannot be preempted.
func spinYield(n int) int {
	x := 1
	for i := range n {
		x = x*31 + i ^ x>>7
		if i&(1<<20-1) == 0 {
			runtime.Gosched()
		}
	}
	return x
}

var result int

// stopTheWorld starts a collection while another goroutine spins for
// about 100 ms; -fix lets the spinning goroutine yield.
func stopTheWorld(fix bool) {
	const rounds = 100_000_000
	started := make(chan bool)
	done := make(chan bool)
	go func() {
		started <- true
		if fix {
			result = spinYield(rounds)
		} else {
			result = spin(rounds)
		}
		done <- true
	}()
	<-started
	time.Sleep(5 * time.Millisecond)
	runtime.GC()
	<-done
}

type item struct {
	next *item
	pad  [6]*int
}

var live *item

// buildLive makes the 32 MiB pointer-rich heap that assist's collections
// must mark, before the trace starts.
func buildLive() {
	for range 1 << 19 {
		live = &item{next: live}
	}
	runtime.GC()
}

var scratch []byte

// assist allocates 64 KiB buffers as fast as it can on every P while the
// live heap is marked; -fix reuses one buffer per goroutine.
func assist(fix bool) {
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			for i := range 400 {
				if !fix {
					buf = make([]byte, 64<<10)
				}
				buf[i%len(buf)] = byte(i)
			}
			scratch = buf
		}()
	}
	wg.Wait()
}
