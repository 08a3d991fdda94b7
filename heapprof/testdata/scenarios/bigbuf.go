package main

import (
	"net/http"
	"net/http/httptest"
	"sync"
)

const bufSize = 10 << 20

// bigbufHandler allocates a fresh 10 MB buffer for every request.
func bigbufHandler(w http.ResponseWriter, r *http.Request) {
	buf := make([]byte, bufSize) // problem:bigbuf
	n := fill(buf, r.URL.Path)
	w.Write(buf[:n])
}

var bufPool = sync.Pool{New: func() any {
	b := make([]byte, bufSize)
	return &b
}}

// pooledHandler reuses buffers across requests. The pool holds *[]byte
// because putting a []byte in an interface would allocate its header.
func pooledHandler(w http.ResponseWriter, r *http.Request) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	n := fill(*bp, r.URL.Path)
	w.Write((*bp)[:n])
}

func fill(buf []byte, s string) int { return copy(buf, s) }

func bigbuf(fix bool) {
	h := http.HandlerFunc(bigbufHandler)
	if fix {
		h = pooledHandler
	}
	for range 50 {
		req := httptest.NewRequest("GET", "/hello", nil)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}
