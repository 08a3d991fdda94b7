// Command fixed consumes the events of ../problem with one Timer created
// before the loop and Reset on every iteration (since Go 1.23 Reset
// guarantees no stale expiry is received afterwards).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

func main() {
	events := flag.Int("events", 200000, "events to consume")
	idle := flag.Duration("idle", time.Minute, "flush after this long without an event")
	flag.Parse()
	defer memprof.Start()()

	ch := make(chan int, 128)
	go func() {
		for i := range *events {
			ch <- i
		}
		close(ch)
	}()

	timer := time.NewTimer(*idle)
	defer timer.Stop()
	batch, flushes, sum := 0, 0, 0
	for {
		timer.Reset(*idle)
		select {
		case ev, ok := <-ch:
			if !ok {
				fmt.Fprintln(os.Stderr, "events:", sum, "flushes:", flushes)
				return
			}
			sum++
			batch += ev & 1
		case <-timer.C:
			flushes++
			batch = 0
		}
	}
}
