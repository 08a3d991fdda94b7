// Command fixed does the copies of ../problem with io.CopyBuffer and a
// buffer taken from a sync.Pool of *[]byte, so no copy allocates a buffer.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"hash"
	"io"
	"os"
	"sync"

	"github.com/gcdoctor/gcdoctor/examples/internal/memprof"
)

// chunkReader serves a chunk of data. It has Read only: no WriteTo.
type chunkReader struct {
	data []byte
	off  int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.off >= len(r.data) {
		return 0, io.EOF
	}
	n := copy(p, r.data[r.off:])
	r.off += n
	return n, nil
}

// hashWriter hashes what is written to it. It has Write only: no ReadFrom.
type hashWriter struct {
	h hash.Hash
	n int64
}

func (w *hashWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return w.h.Write(p)
}

// copyBufs holds copy buffers; it stores *[]byte, as a slice put in an
// interface would allocate.
var copyBufs = sync.Pool{New: func() any {
	b := make([]byte, 32<<10)
	return &b
}}

func main() {
	parts := flag.Int("parts", 2000, "chunks to copy")
	size := flag.Int("size", 16<<10, "bytes per chunk")
	flag.Parse()
	defer memprof.Start()()

	data := make([]byte, *size)
	for i := range data {
		data[i] = byte(i)
	}
	w := &hashWriter{h: sha256.New()}
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	for range *parts {
		r := &chunkReader{data: data}
		if _, err := io.CopyBuffer(w, r, *bp); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	fmt.Fprintf(os.Stderr, "copied %d bytes, sha256 %x\n", w.n, w.h.Sum(nil)[:4])
}
