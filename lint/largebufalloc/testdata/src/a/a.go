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

// Not flagged: allocated on the loop's way out, at most once (vault
// command/server.go).
func waitLeader(isLeader func() bool, dump func([]byte)) bool {
	for tries := 5; !isLeader(); tries-- {
		if tries == 0 {
			buf := make([]byte, 1<<16)
			dump(buf)
			return false
		}
	}
	return true
}

// Not flagged: the same in the returned expression.
func firstBig(rs []io.Reader) []byte {
	for _, r := range rs {
		if r != nil {
			return make([]byte, 1<<16)
		}
	}
	return nil
}

// Flagged: the branch leaves the inner loop, but the outer one repeats it.
func perBatch(batches [][]io.Reader) {
	for _, b := range batches {
		for _, r := range b {
			if r == nil {
				buf := make([]byte, 1<<16) // want `64 KiB buffer allocated on every iteration of a loop`
				_ = buf
				break
			}
		}
	}
}

// Flagged: break ends the switch, not the loop.
func perItem(rs []io.Reader) {
	for _, r := range rs {
		switch r {
		case nil:
			buf := make([]byte, 1<<16) // want `64 KiB buffer allocated on every iteration of a loop`
			_ = buf
			break
		}
	}
}

// Seed 000's second example: the handler calls a helper that makes the
// buffer.
func newBuf() []byte { // want newBuf:"fresh 10485760-byte buffer"
	return make([]byte, 10<<20)
}

// A helper of the helper, through a variable assigned once.
func scratch() []byte { // want scratch:"fresh 10485760-byte buffer"
	b := newBuf()
	return b
}

// Either branch returns a fresh buffer: the smaller counts.
func sized(big bool) []uint64 { // want sized:"fresh 524288-byte buffer"
	if big {
		return make([]uint64, 1<<17)
	}
	return make([]uint64, 0, 1<<16)
}

func example2(w http.ResponseWriter, r *http.Request) {
	b := newBuf() // want `10240 KiB buffer allocated on every HTTP request by newBuf, which makes a new one each call`
	for i := range b {
		b[i] = 1
	}
}

func helpers(rs []io.Reader) {
	for range rs {
		_ = scratch()   // want `10240 KiB buffer allocated on every iteration of a loop by scratch`
		_ = sized(true) // want `512 KiB buffer allocated on every iteration of a loop by sized`
	}
}

// Not flagged: the helpers do not always return a fresh buffer, or a
// small one.
var shared = make([]byte, 1<<20)

func reused() []byte { return shared }

func maybe(n int) []byte {
	if n > 0 {
		return make([]byte, n)
	}
	return make([]byte, 1<<20)
}

func grown() []byte {
	b := make([]byte, 1<<20)
	b = b[:10]
	return b
}

func notHelpers(rs []io.Reader) {
	for range rs {
		_ = reused()
		_ = maybe(1)
		_ = grown()
	}
	_ = newBuf()
}
