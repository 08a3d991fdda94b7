// Command fixed serves the same requests as ../problem, but its handler
// takes its 10 MB buffer from a sync.Pool of *[]byte and puts it back when
// done, so steady-state requests allocate almost nothing.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

const bufSize = 10 << 20

func newBuf() []byte {
	return make([]byte, bufSize)
}

// bufPool stores *[]byte: putting a plain slice in an interface allocates.
var bufPool = sync.Pool{New: func() any {
	b := newBuf()
	return &b
}}

func handle(w http.ResponseWriter, r *http.Request) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	fmt.Fprintln(w, render(*bp))
}

// render stands for the work done with the buffer: it touches every page.
func render(buf []byte) int {
	sum := 0
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = byte(i >> 12)
		sum += int(buf[i])
	}
	return sum
}

func main() {
	requests := flag.Int("requests", 300, "requests to send")
	clients := flag.Int("clients", 4, "concurrent clients")
	flag.Parse()
	defer memprof.Start()()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: http.HandlerFunc(handle)}
	go srv.Serve(ln)
	defer srv.Close()

	url := "http://" + ln.Addr().String() + "/"
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range *clients {
		wg.Go(func() {
			for range jobs {
				resp, err := http.Get(url)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	for i := range *requests {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	fmt.Fprintln(os.Stderr, "requests:", *requests)
}
