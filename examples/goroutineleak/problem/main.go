// Command problem leaks goroutines: each request asks -replicas replicas
// for an answer and takes the first, but every replica sends its answer on
// an unbuffered channel, so all the others wait forever for a receiver
// that has gone. Each holds a 64 KiB answer.
//
// It serves net/http/pprof on loopback, drives itself with -requests
// requests, prints "ready URL" and then waits for SIGINT or SIGTERM.
// Built with GOEXPERIMENT=goroutineleakprofile (Go 1.26), its
// /debug/pprof/goroutineleak lists the leaked goroutines, and gcdoctor
// attach names where they were started.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"syscall"
)

// answerSize is what each replica answers with.
const answerSize = 64 << 10

var replicas = flag.Int("replicas", 3, "replicas asked per request")

// first asks every replica and returns the first answer.
func first(id int) []byte {
	answers := make(chan []byte)
	for r := range *replicas {
		go func() {
			answers <- lookup(id, r)
		}()
	}
	return <-answers
}

// lookup stands for a replica's work: an answer of answerSize bytes.
func lookup(id, replica int) []byte {
	b := make([]byte, answerSize)
	b[0], b[1] = byte(id), byte(replica)
	return b
}

func handle(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintln(w, len(first(len(r.URL.Path))))
}

func main() {
	requests := flag.Int("requests", 200, "requests to send")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	http.HandleFunc("/answer", handle)
	go http.Serve(ln, nil)
	url := "http://" + ln.Addr().String()
	for range *requests {
		resp, err := http.Get(url + "/answer")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	fmt.Println("ready", url)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
}
