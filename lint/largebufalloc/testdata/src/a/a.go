package a

import (
	"io"
	"net/http"
)

func upload(w http.ResponseWriter, r *http.Request) {
	buf := make([]byte, 1<<20) // want `1024 KiB buffer allocated on every HTTP request`
	io.ReadFull(r.Body, buf)
}

func register() {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_ = make([]byte, 0, 64<<10) // want `64 KiB buffer allocated on every HTTP request`
	})
}

func loop(rs []io.Reader) {
	for _, r := range rs {
		buf := make([]uint64, 10000) // want `78 KiB buffer allocated on every iteration of a loop`
		_ = r
		_ = buf
	}
}

// Not flagged: small, dynamic, or allocated once.
func other(n int) {
	for i := 0; i < n; i++ {
		_ = make([]byte, 4096)
		_ = make([]byte, n)
	}
	_ = make([]byte, 1<<20)
}
