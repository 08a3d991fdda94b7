package a

import (
	"bytes"
	"io"
	"net/http"
	"os"
)

type reader struct{}

func (*reader) Read(p []byte) (int, error) { return 0, io.EOF }

type writer struct{}

func (*writer) Write(p []byte) (int, error) { return len(p), nil }

func loop(rs []*reader, w *writer) {
	for _, r := range rs {
		io.Copy(w, r) // want `io.Copy allocates a 32 KiB buffer on every iteration of a loop \(\*reader has no WriteTo, \*writer has no ReadFrom\)`
	}
}

func handler(w http.ResponseWriter, r *http.Request) {
	var dst writer
	io.Copy(&dst, &reader{}) // want `io.Copy allocates a 32 KiB buffer on every HTTP request`

	// Not flagged: interface-typed operands, WriterTo or ReaderFrom.
	io.Copy(w, r.Body)
	var buf bytes.Buffer
	io.Copy(&buf, &reader{})
	io.Copy(&dst, bytes.NewReader(nil))
	f, _ := os.Open("x")
	io.Copy(f, &reader{})
}

// Not flagged: runs once.
func once(w *writer, r *reader) {
	io.Copy(w, r)
}

// Not flagged: copied on the loop's way out, at most once.
func copyFirst(rs []*reader, w *writer) error {
	for _, r := range rs {
		if r != nil {
			_, err := io.Copy(w, r)
			return err
		}
	}
	return nil
}

func copyN(rs []*reader, w *writer) {
	for _, r := range rs {
		io.CopyN(w, r, 100) // want `io.CopyN allocates a buffer of up to 32 KiB on every iteration of a loop`
	}
}
