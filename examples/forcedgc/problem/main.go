// Command problem is seed 000's first example: 100 rounds of 8 goroutines,
// all started at once, each building a string with +=, while another
// goroutine calls runtime.GC() in a loop "to keep memory low".
//
// gcdoctor run reports forced-gc: most cycles are forced, not paced.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

var total atomic.Int64

func main() {
	rounds := flag.Int("rounds", 100, "rounds of goroutines")
	perRound := flag.Int("goroutines", 8, "goroutines per round")
	words := flag.Int("words", 100, "words appended by each goroutine")
	spin := flag.Int("spin", 400, "passes of CPU work over the string by each goroutine")
	pace := flag.Duration("pace", 5*time.Millisecond, "a new round of goroutines arrives this often")
	flag.Parse()
	defer memprof.Start()()

	done := make(chan struct{})
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		for {
			select {
			case <-done:
				return
			default:
				runtime.GC()
			}
		}
	}()

	var wg sync.WaitGroup
	for i := 0; i < *rounds; i++ {
		for j := 0; j < *perRound; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := ""
				for k := 0; k < *words; k++ {
					s += " " + "Hello"
				}
				total.Add(int64(work(s, *spin)))
			}()
		}
		time.Sleep(*pace)
	}
	wg.Wait()
	close(done)
	<-gcDone
	fmt.Fprintln(os.Stderr, "checksum:", total.Load())
}

// work stands for what each goroutine really does with its string: CPU work
// that allocates nothing.
func work(s string, passes int) uint32 {
	h := uint32(2166136261)
	for range passes {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint32(s[i])) * 16777619
		}
	}
	return h & 0xff
}
