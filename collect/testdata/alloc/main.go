// Command alloc is a small Go program for exercising package collect: it
// allocates garbage so that the collector runs, writes to both output
// streams, and can wait for signals, ignore SIGTERM, SIGINT or SIGHUP, sleep, kill
// itself or exit with a chosen code.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/gcdoctor/gcdoctor/agent"
)

var sink [][]byte

func main() {
	allocFor := flag.Duration("alloc", 300*time.Millisecond, "how long to allocate")
	exit := flag.Int("exit", 0, "exit code")
	wait := flag.Bool("wait", false, "print ready, then wait for SIGINT, SIGTERM or SIGHUP and exit")
	ignoreTerm := flag.Bool("ignore-term", false, "print ready, then ignore SIGTERM and sleep forever")
	ignoreStop := flag.Bool("ignore-stop", false, "print ready, then ignore SIGINT, SIGTERM and SIGHUP and sleep forever")
	lines := flag.Int("lines", 0, "print this many lines on stdout before allocating")
	sleep := flag.Bool("sleep", false, "print ready, then sleep forever with default signal handling")
	killSelf := flag.Bool("kill-self", false, "kill itself with SIGKILL")
	readStdin := flag.Bool("stdin", false, "read standard input to the end and report its size")
	heapPeak := flag.Bool("heap-peak", false, "write the heap profile at the peak where gcdoctor asks (agent.WatchHeapPeak)")
	spike := flag.Int("spike", 0, "after allocating, map this many MiB outside the heap, touch them and unmap them again: a peak of RSS between two samples")
	spikeAfter := flag.Duration("spike-after", 0, "wait this long before the spike")
	flag.Parse()
	stopPeak := func() {}
	if *heapPeak {
		stopPeak = agent.WatchHeapPeak()
	}

	fmt.Println("alloc: hello on stdout")
	fmt.Fprintln(os.Stderr, "alloc: hello on stderr")
	fmt.Printf("alloc: GODEBUG=%s\n", os.Getenv("GODEBUG"))
	fmt.Printf("alloc: pid=%d pgid=%d\n", os.Getpid(), syscall.Getpgrp())
	fmt.Printf("alloc: %s=%s\n", agent.HeapPeakEnv, os.Getenv(agent.HeapPeakEnv))

	for i := range *lines {
		fmt.Printf("alloc: line %d\n", i)
	}

	if *readStdin {
		n, err := io.Copy(io.Discard, os.Stdin)
		fmt.Printf("alloc: read %d bytes from stdin (err=%v)\n", n, err)
	}

	// Keep about 16 MiB live in 64 KiB pieces while allocating more, so
	// that the heap grows, the collector runs and RSS is visible.
	const piece = 64 << 10
	deadline := time.Now().Add(*allocFor)
	for i := 0; time.Now().Before(deadline); i++ {
		b := make([]byte, piece)
		for j := 0; j < len(b); j += 4096 {
			b[j] = byte(i)
		}
		if len(sink) < 256 {
			sink = append(sink, b)
		} else {
			sink[i%len(sink)] = b
		}
	}
	// A forced collection prints a gctrace line even with GOGC=off.
	runtime.GC()
	stopPeak()
	if *spike > 0 {
		time.Sleep(*spikeAfter)
		m, err := syscall.Mmap(-1, 0, *spike<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			fmt.Fprintln(os.Stderr, "alloc:", err)
			os.Exit(1)
		}
		for j := 0; j < len(m); j += 4096 {
			m[j] = 1
		}
		syscall.Munmap(m)
		fmt.Println("alloc: spike done")
	}

	switch {
	case *killSelf:
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		sleepForever()
	case *sleep:
		fmt.Println("alloc: ready")
		sleepForever()
	case *ignoreTerm:
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("alloc: ready")
		sleepForever()
	case *ignoreStop:
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		fmt.Println("alloc: ready")
		sleepForever()
	case *wait:
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		fmt.Println("alloc: ready")
		sig := <-c
		fmt.Printf("alloc: got %v\n", sig)
	}
	os.Exit(*exit)
}

// sleepForever blocks without looking deadlocked to the runtime, which
// would end the program.
func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}
