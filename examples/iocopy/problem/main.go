// Command problem is seed 002's hidden io.Copy buffer: it copies -parts
// chunks from a plain reader type into a plain hashing writer type. Neither
// implements io.WriterTo or io.ReaderFrom, so every io.Copy allocates a
// fresh 32 KB buffer.
//
// gcdoctor heap reports heap-io-copy; gcdoctor lint reports copybuffer.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"hash"
	"io"
	"os"

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
	for range *parts {
		r := &chunkReader{data: data}
		if _, err := io.Copy(w, r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	fmt.Fprintf(os.Stderr, "copied %d bytes, sha256 %x\n", w.n, w.h.Sum(nil)[:4])
}
