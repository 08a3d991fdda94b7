// Command fixed does the work of ../problem without forcing collections: the
// goroutines run in batches waited for with a sync.WaitGroup, each builds its
// string with a strings.Builder, and the pacer alone decides when to collect.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
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

	for i := 0; i < *rounds; i++ {
		var wg sync.WaitGroup
		for j := 0; j < *perRound; j++ {
			wg.Go(func() {
				var b strings.Builder
				b.Grow(*words * len(" Hello"))
				for k := 0; k < *words; k++ {
					b.WriteString(" ")
					b.WriteString("Hello")
				}
				total.Add(int64(work(b.String(), *spin)))
			})
		}
		wg.Wait()
		time.Sleep(*pace)
	}
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
