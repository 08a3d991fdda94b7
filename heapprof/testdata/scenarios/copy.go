package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// Plain wrappers hide WriterTo and ReaderFrom, as most real readers and
// writers do, so io.Copy has to allocate a 32 KB buffer on every call.
type reader struct{ r io.Reader }

func (r reader) Read(p []byte) (int, error) { return r.r.Read(p) }

type writer struct{ w io.Writer }

func (w writer) Write(p []byte) (int, error) { return w.w.Write(p) }

var copyBufs = sync.Pool{New: func() any {
	b := make([]byte, 32<<10)
	return &b
}}

func copyCase(fix bool) {
	var sink bytes.Buffer
	sink.Grow(1 << 10)
	payload := strings.Repeat("x", 100)
	for range 2000 {
		sink.Reset()
		src := reader{strings.NewReader(payload)}
		dst := writer{&sink}
		if fix {
			bp := copyBufs.Get().(*[]byte)
			io.CopyBuffer(dst, src, *bp)
			copyBufs.Put(bp)
			continue
		}
		io.Copy(dst, src) // problem:copy
	}
}
