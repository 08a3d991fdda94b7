// Command server is the service the live package's tests sample: it keeps
// a live heap, allocates short-lived garbage at a steady rate, and serves
// the sources its flags name on a loopback port. Run it with
// GODEBUG=gctrace=1: the tests compare what the sources say with its own
// gctrace lines.
//
// It prints two lines on standard output, then serves until killed:
//
//	start UNIX_NANO   when main began, to place gctrace's @seconds in time
//	addr HOST:PORT    where it serves
package main

import (
	"expvar"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"regexp"
	"runtime"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gcdoctor/gcdoctor/agent"
)

func main() {
	fmt.Printf("start %d\n", time.Now().UnixNano())
	withPprof := flag.Bool("pprof", false, "serve /debug/pprof")
	withMetrics := flag.Bool("metrics", false, "serve /metrics (client_golang's default collectors)")
	withClasses := flag.Bool("cpu-classes", false, "with -metrics, export the runtime's GC and scheduler metrics and CPU classes")
	withExpvar := flag.Bool("expvar", false, "serve /debug/vars")
	withAgent := flag.Bool("agent", false, "serve gcdoctor's agent")
	liveMiB := flag.Int("live", 16, "live heap to keep, MiB")
	rate := flag.Int("rate", 200, "short-lived allocation, MiB/s")
	spin := flag.Int("spin", 0, "every 100 ms, run a loop without calls for this many ms (long pauses with GODEBUG=asyncpreemptoff=1)")
	offheap := flag.Int("offheap", 0, "memory to map and touch outside the Go heap, MiB")
	flag.Parse()
	if *offheap > 0 {
		mapOffHeap(*offheap)
	}
	if *spin > 0 {
		go spinner(time.Duration(*spin) * time.Millisecond)
	}

	mux := http.NewServeMux()
	if *withPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	if *withMetrics {
		reg := prometheus.NewRegistry()
		goc := collectors.NewGoCollector()
		if *withClasses {
			goc = collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsGC, collectors.MetricsScheduler,
				collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/cpu/classes/`)}))
		}
		reg.MustRegister(goc, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	}
	if *withExpvar {
		mux.Handle("/debug/vars", expvar.Handler())
	}
	if *withAgent {
		agent.Register(mux)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("addr %s\n", ln.Addr())
	os.Stdout.Sync()
	go churn(*liveMiB, *rate)
	log.Fatal(http.Serve(ln, mux))
}

// offHeap keeps the mapped memory reachable.
var offHeap []byte

// mapOffHeap maps mib MiB outside the Go heap and touches every page, so
// that it counts in RSS but not in any heap figure.
func mapOffHeap(mib int) {
	b, err := syscall.Mmap(-1, 0, mib<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	offHeap = b
}

// spinSink keeps the spinning loop from being optimised away.
var spinSink int

// spinner runs, every 100 ms, a loop with no call in it for about d: a
// goroutine the scheduler cannot stop without asynchronous preemption.
func spinner(d time.Duration) {
	// Calibrate the loop on a short run.
	n := 1 << 20
	t0 := time.Now()
	spinSink += spinLoop(n)
	per := time.Since(t0) / time.Duration(n)
	iters := int(d / max(per, 1))
	for range time.Tick(100 * time.Millisecond) {
		spinSink += spinLoop(iters)
	}
}

//go:noinline
func spinLoop(n int) int {
	x := 0
	for i := 0; i < n; i++ {
		x += i * i
	}
	return x
}

// node makes the live heap pointerful, so that marking has work to do.
type node struct {
	next *node
	pad  [56]byte
}

var live []*node

// churn keeps liveMiB of linked nodes and allocates rate MiB/s of 4 KiB
// buffers that die at once, in steps of 10 ms.
func churn(liveMiB, rate int) {
	for i := 0; i < liveMiB<<20/64; i++ {
		n := &node{}
		if len(live) > 0 {
			n.next = live[len(live)-1]
		}
		live = append(live, n)
	}
	var sink []byte
	perStep := rate << 20 / 100
	for tick := time.NewTicker(10 * time.Millisecond); ; <-tick.C {
		for done := 0; done < perStep; done += 4096 {
			sink = make([]byte, 4096)
		}
		runtime.KeepAlive(sink)
	}
}
