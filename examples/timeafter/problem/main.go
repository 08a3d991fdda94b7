// Command problem is seed 003's time.After in a select loop: a consumer
// that flushes its batch when no event came for -idle. Every event that
// arrives first leaves a timer and its channel behind (collected at once
// since Go 1.23, but still one allocation per event; before Go 1.23 each
// stayed in memory until it fired).
//
// gcdoctor lint reports timeafterloop.
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

	batch, flushes, sum := 0, 0, 0
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				fmt.Fprintln(os.Stderr, "events:", sum, "flushes:", flushes)
				return
			}
			sum++
			batch += ev & 1
		case <-time.After(*idle):
			flushes++
			batch = 0
		}
	}
}
