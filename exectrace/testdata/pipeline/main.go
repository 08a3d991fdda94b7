// Command pipeline is a worker pool doing I/O and CPU work: a producer sends
// jobs on a channel, and each of -workers goroutines hashes a buffer (CPU)
// then writes the digest to a temporary file. -latency adds a blocking
// system call after each write, standing for a slow device or a remote
// store. It prints the wall time of the run and, with -trace, writes an
// execution trace of it.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/trace"
	"sync"
	"syscall"
	"time"
)

func main() {
	workers := flag.Int("workers", 4, "worker goroutines")
	jobs := flag.Int("jobs", 2000, "jobs to process")
	kb := flag.Int("kb", 64, "KiB hashed per job (CPU work)")
	latency := flag.Duration("latency", 800*time.Microsecond, "blocking system call per job after the write")
	out := flag.String("trace", "", "execution trace output file")
	flag.Parse()

	f, err := os.CreateTemp("", "pipeline-*.out")
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()

	if *out != "" {
		tf, err := os.Create(*out)
		if err != nil {
			log.Fatal(err)
		}
		defer tf.Close()
		if err := trace.Start(tf); err != nil {
			log.Fatal(err)
		}
		defer trace.Stop()
	}

	start := time.Now()
	ch := make(chan int, *workers)
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, *kb<<10)
			for j := range ch {
				work(f, buf, j, *latency)
			}
		}()
	}
	for j := 0; j < *jobs; j++ {
		ch <- j
	}
	close(ch)
	wg.Wait()
	fmt.Printf("wall %d\n", time.Since(start).Nanoseconds())
}

// work does one job: hash the buffer, write the digest, wait for the
// "device".
func work(f *os.File, buf []byte, j int, latency time.Duration) {
	buf[0] = byte(j)
	sum := sha256.Sum256(buf)
	if _, err := f.Write(sum[:]); err != nil {
		log.Fatal(err)
	}
	if latency > 0 {
		ts := syscall.NsecToTimespec(latency.Nanoseconds())
		for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
		}
	}
}
