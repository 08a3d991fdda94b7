// Command concat is the "goroutine explosion" scenario: rounds of goroutines
// that build strings with +=, while another goroutine calls runtime.GC in a
// loop. With -batched each round waits for its goroutines before the next
// starts; without it every round is started at once, so hundreds of
// goroutines compete for the Ps.
//
// It writes a runtime execution trace to -trace and prints "trace start" and
// "trace stop" to standard error around the traced part, so that a
// GODEBUG=gctrace=1 log can be cut to the same span.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/trace"
	"sync"
)

var sink [64]string

// concat builds a string of n bytes one byte at a time: every += copies the
// whole string, so the work is quadratic and allocates heavily.
func concat(slot, n int, wg *sync.WaitGroup) {
	defer wg.Done()
	s := ""
	for i := 0; i < n; i++ {
		s += "x"
	}
	sink[slot%len(sink)] = s
}

// collect calls runtime.GC until stop is closed.
func collect(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-stop:
			return
		default:
			runtime.GC()
		}
	}
}

func main() {
	out := flag.String("trace", "trace.out", "execution trace output file")
	rounds := flag.Int("rounds", 100, "rounds of goroutines")
	per := flag.Int("per", 8, "goroutines per round")
	n := flag.Int("n", 1000, "bytes each goroutine appends one at a time")
	batched := flag.Bool("batched", false, "wait for each round before starting the next")
	flag.Parse()

	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintln(os.Stderr, "trace start")
	if err := trace.Start(f); err != nil {
		log.Fatal(err)
	}

	stop, done := make(chan struct{}), make(chan struct{})
	go collect(stop, done)

	var all sync.WaitGroup
	for r := 0; r < *rounds; r++ {
		var round sync.WaitGroup
		wg := &all
		if *batched {
			wg = &round
		}
		for i := 0; i < *per; i++ {
			wg.Add(1)
			go concat(r**per+i, *n, wg)
		}
		round.Wait()
	}
	all.Wait()
	close(stop)
	<-done

	trace.Stop()
	fmt.Fprintln(os.Stderr, "trace stop")
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
