// Command gcloop is the first example of a well-known article on Go GC
// tuning: goroutines started in a loop build strings with +=, while another
// goroutine calls runtime.GC() in a loop and reports the average time of a
// collection. gcdoctor's tests run it under `gcdoctor run`.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

var (
	stop  int32
	count int64
	sum   time.Duration
)

func concat(rounds int) {
	var wg sync.WaitGroup
	for n := 0; n < rounds; n++ {
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := "Go GC"
				s += " " + "Hello"
				s += " " + "World"
				_ = s
			}()
		}
	}
	wg.Wait()
}

func main() {
	rounds := flag.Int("rounds", 20000, "rounds of 8 goroutines")
	exit := flag.Int("exit", 0, "exit status")
	// Tests ask for a few forced collections whatever the speed of the
	// machine: a fast one ends the rounds before the loop has run twice.
	minGCs := flag.Int64("min-gcs", 5, "collections to force at least")
	flag.Parse()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for atomic.LoadInt32(&stop) == 0 || count < *minGCs {
			t := time.Now()
			runtime.GC()
			sum += time.Since(t)
			count++
		}
	}()
	concat(*rounds)
	atomic.StoreInt32(&stop, 1)
	<-done
	if count > 0 {
		fmt.Printf("GC spend avg: %v over %d calls\n", time.Duration(int64(sum)/count), count)
	}
	os.Exit(*exit)
}
