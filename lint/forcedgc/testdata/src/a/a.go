package a

import (
	"net/http"
	"runtime"
	"runtime/debug"
)

func loop(jobs chan int) {
	for range jobs {
		runtime.GC() // want `runtime.GC in a loop forces a full, blocking garbage collection`
	}
}

func handler(w http.ResponseWriter, r *http.Request) {
	debug.FreeOSMemory() // want `debug.FreeOSMemory in an HTTP handler`
}

func register(mux *http.ServeMux) {
	mux.HandleFunc("/gc", func(w http.ResponseWriter, r *http.Request) {
		runtime.GC() // want `runtime.GC in an HTTP handler`
	})
}

// Not flagged: runs once.
func shutdown() {
	runtime.GC()
	debug.FreeOSMemory()
}
