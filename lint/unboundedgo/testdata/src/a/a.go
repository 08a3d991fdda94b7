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
