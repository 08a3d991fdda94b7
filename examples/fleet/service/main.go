// Command service is a small Go service instrumented with client_golang,
// for the fleet tests (fleet/prometheus_test.go): it serves /metrics (and net/http/pprof's
// /debug/pprof on the same port, as many services do) while it runs one
// of four GC behaviours.
//
//	service -addr 127.0.0.1:0 -mode alloc|memlimit|growth|healthy [-runtime-metrics]
//
// It prints the address it listens on as its first line of output. With
// -runtime-metrics the Go collector exports the runtime/metrics set
// (go_cpu_classes_*, go_gc_heap_live_bytes, pause histograms) besides
// the default go_memstats_* series; without it, only the default set.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	mode := flag.String("mode", "healthy", "alloc, memlimit, growth or healthy")
	rm := flag.Bool("runtime-metrics", false, "export the runtime/metrics set too")
	flag.Parse()

	reg := prometheus.NewRegistry()
	if *rm {
		reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsAll)))
	} else {
		reg.MustRegister(collectors.NewGoCollector())
	}
	reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ln.Addr().String())
	go func() { log.Fatal(http.Serve(ln, nil)) }()

	switch *mode {
	case "alloc":
		allocHeavy()
	case "memlimit":
		memLimit()
	case "growth":
		growth()
	case "healthy":
		healthy()
	default:
		fmt.Fprintf(os.Stderr, "service: unknown mode %q\n", *mode)
		os.Exit(2)
	}
}

var sink []byte

// allocHeavy makes short-lived garbage as fast as one goroutine can, with
// a small live heap: many cycles, GC a large share of the CPU.
func allocHeavy() {
	keep := make([][]byte, 64)
	for i := 0; ; i++ {
		b := make([]byte, 64<<10)
		b[0] = byte(i)
		keep[i%len(keep)] = b
		for j := 0; j < 16; j++ {
			sink = make([]byte, 512)
		}
		if i%1024 == 0 {
			// Leave the CPU to others now and then, as a service
			// waiting for requests does.
			time.Sleep(time.Millisecond)
		}
	}
}

// memLimit holds a live heap right under GOMEMLIMIT with GOGC=off, and
// keeps allocating: the heap goal is pinned at the limit and the GC runs
// back to back.
func memLimit() {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(40 << 20)
	live := make([][]byte, 0, 36<<10)
	for range 36 << 10 {
		live = append(live, make([]byte, 1<<10))
	}
	for i := 0; ; i++ {
		sink = make([]byte, 4<<10)
		if i%4096 == 0 {
			live[i%len(live)] = make([]byte, 1<<10)
		}
	}
}

var leak [][]byte

// growth keeps 3 MiB more every second (a cache without bounds) while
// making some garbage, so that cycles show the live heap rising.
func growth() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for range t.C {
		leak = append(leak, make([]byte, 300<<10))
		for range 64 {
			sink = make([]byte, 32<<10)
		}
	}
}

// healthy allocates a little, steadily: few cycles, a small GC cost.
func healthy() {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for range t.C {
		for range 8 {
			sink = make([]byte, 4<<10)
		}
	}
}
