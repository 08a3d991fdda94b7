package a

import (
	"net"
	"sync"
	"time"
)

func process(int) {}

func perJob(jobs chan int) {
	for job := range jobs {
		go process(job) // want `goroutine started for every value received from a channel`
	}
}

func selectLoop(jobs chan int, done chan struct{}) {
	for {
		select {
		case job := <-jobs:
			go process(job) // want `goroutine started for every value`
		case <-done:
			return
		}
	}
}

// Not flagged: a semaphore bounds concurrency.
func semaphore(jobs chan int) {
	sem := make(chan struct{}, 8)
	for job := range jobs {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			process(job)
		}()
	}
}

// Not flagged: waits for each batch.
func batches(jobs chan []int) {
	for batch := range jobs {
		var wg sync.WaitGroup
		wg.Wait()
		for _, j := range batch {
			wg.Add(1)
			go func() { defer wg.Done(); process(j) }()
		}
	}
}

// Not flagged: starting a pool of workers.
func pool(jobs chan int, n int) {
	for i := 0; i < n; i++ {
		go func() {
			for j := range jobs {
				process(j)
			}
		}()
	}
	for range n {
		go func() {}()
	}
}

// Not flagged: one goroutine per connection.
func serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go c.Close()
	}
}

// Not flagged: fan-out over a slice.
func fanOut(xs []int) {
	for _, x := range xs {
		go process(x)
	}
}

// Not flagged: one goroutine per tick, not per item.
func ticks(tick <-chan time.Time) {
	for range tick {
		go process(0)
	}
}

// Not flagged: the goroutine does not take the received value (it is
// started by a timer, like net's fallback dialer).
func fallback(results chan int, timer *time.Timer) {
	for {
		select {
		case <-timer.C:
			go process(1)
		case r := <-results:
			if r == 0 {
				return
			}
		}
	}
}

// Seed 000's first example: rounds of 8 goroutines, 100 rounds, nothing
// waiting between them: 800 goroutines alive at once.
func concat() {
	for n := 0; n < 100; n++ {
		for i := 0; i < 8; i++ {
			go func() { // want `goroutine started per item in rounds`
				s := "Go GC"
				s += " " + "Hello"
				_ = s
			}()
		}
	}
}

// Paced rounds are still rounds: the sleep does not wait for them.
func paced(rounds int) {
	for range rounds {
		for i := range 8 {
			go process(i) // want `goroutine started per item in rounds`
		}
		time.Sleep(time.Millisecond)
	}
}

// Not flagged: each round is waited for (the seed's fix).
func concatBatches() {
	for n := 0; n < 100; n++ {
		var wg sync.WaitGroup
		wg.Add(8)
		for i := 0; i < 8; i++ {
			go func() {
				defer wg.Done()
				process(i)
			}()
		}
		wg.Wait()
	}
}

// Not flagged: pools of workers started per shard loop for work.
func shardPools(shards []chan int) {
	for _, ch := range shards {
		for range 4 {
			go worker(ch)
		}
	}
}

func worker(ch chan int) {
	for j := range ch {
		process(j)
	}
}
