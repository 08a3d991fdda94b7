package gctrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxLine bounds the bytes kept of one line. The longest gctrace line, a
// pre-1.5 one with every field at its widest, is under 300 bytes; a longer
// line is program output, which is reported and skipped.
const maxLine = 64 << 10

// maxSkip bounds how far a line too long to keep is skipped in search of
// its end. An input that goes further without a line end is not a log of
// lines at all (/dev/zero, a binary stream, a JSON dump on one line), and
// reading it to its end could take forever.
const maxSkip = 64 << 20

// Line-ending conventions, found from the first line end of the input.
const (
	eolUnknown = iota // no line end seen yet
	eolLF             // "\n", and "\r\n" as one line end
	eolCR             // also a lone "\r" (classic Mac OS, some log shippers)
)

var bom = []byte{0xef, 0xbb, 0xbf}

// lineReader splits a stream into lines. A line ends at "\n" or "\r\n";
// in an input whose first line ends with a lone "\r", at a lone "\r" too.
// An input that mixes conventions keeps the first one, so that a progress
// bar's "\r" inside an LF log does not shift the line numbers an editor
// shows. A UTF-8 byte order mark at the start is dropped.
//
// Memory is one buffer of maxLine bytes and one copy of a long line's head,
// whatever the input.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int   // unread input is buf[start:end]
	err        error // what ended reading from r; io.EOF at the end
	eol        int
	begun      bool   // the byte order mark has been looked for
	head       []byte // the first maxLine bytes of the last long line
	n          int64  // bytes consumed
}

func newLineReader(r io.Reader) *lineReader {
	// Two bytes more than maxLine: a line of exactly maxLine bytes still
	// fits with its "\r\n".
	return &lineReader{r: r, buf: make([]byte, maxLine+2)}
}

// errNoLineEnd ends an input in which a line does not end within maxSkip
// bytes.
var errNoLineEnd = fmt.Errorf("no line end within %d MiB: not a log of text lines", maxSkip>>20)

// next returns the next line without its line end. eof reports that the
// input ended without a line end after it (or, with a nil line, that
// nothing is left); failure then tells whether it ended on an error. long reports a line longer than maxLine: line holds its
// first maxLine bytes and the rest was skipped. The line is valid until the
// next call. err is a read error, or errNoLineEnd.
func (lr *lineReader) next() (line []byte, eof, long bool, err error) {
	scan := lr.start
	for {
		if lr.begun {
			if i, w, ok := lr.findEnd(scan); ok {
				line = lr.buf[lr.start:i]
				lr.n += int64(i + w - lr.start)
				lr.start = i + w
				if len(line) > maxLine {
					return line[:maxLine], false, true, nil
				}
				return line, false, false, nil
			}
			// A pending "\r" at the end of the data is looked at again
			// once the next byte is known.
			scan = lr.end
			if lr.end > lr.start && lr.buf[lr.end-1] == '\r' && lr.eol != eolLF {
				scan = lr.end - 1
			}
		}
		if lr.err != nil {
			if lr.start < lr.end {
				line = lr.buf[lr.start:lr.end]
				lr.n += int64(len(line))
				lr.start = lr.end
				if n := len(line); n > 0 && line[n-1] == '\r' {
					line = line[:n-1]
				}
				return line, true, false, nil
			}
			if lr.err == io.EOF {
				return nil, true, false, nil
			}
			return nil, false, false, lr.err
		}
		if lr.start == 0 && lr.end == len(lr.buf) {
			return lr.skipLong()
		}
		if lr.start > 0 {
			copy(lr.buf, lr.buf[lr.start:lr.end])
			lr.end -= lr.start
			scan -= lr.start
			lr.start = 0
		}
		lr.fill()
		if !lr.begun && (lr.end >= len(bom) || lr.err != nil) {
			lr.begun = true
			if bytes.HasPrefix(lr.buf[:lr.end], bom) {
				lr.start += len(bom)
				lr.n += int64(len(bom))
			}
			scan = lr.start
		}
	}
}

// failure returns the error that ended the input early, or nil when it
// ended normally or has not ended.
func (lr *lineReader) failure() error {
	if lr.err == io.EOF || lr.start < lr.end {
		return nil
	}
	return lr.err
}

// findEnd looks for the end of the line that starts at lr.start, from
// index from on. It returns where the line end is and how many bytes it
// takes, or ok false when the data read so far holds none.
func (lr *lineReader) findEnd(from int) (i, w int, ok bool) {
	b := lr.buf[:lr.end]
	if lr.eol == eolLF {
		j := bytes.IndexByte(b[from:], '\n')
		if j < 0 {
			return 0, 0, false
		}
		i = from + j
		if i > lr.start && b[i-1] == '\r' {
			return i - 1, 2, true
		}
		return i, 1, true
	}
	j := bytes.IndexAny(b[from:], "\r\n")
	if j < 0 {
		return 0, 0, false
	}
	i = from + j
	if b[i] == '\n' {
		if lr.eol == eolUnknown {
			lr.eol = eolLF
		}
		return i, 1, true
	}
	if i+1 == len(b) {
		if lr.err == nil {
			return 0, 0, false // is it "\r\n"? Read on to know.
		}
		return i, 1, true
	}
	if b[i+1] == '\n' {
		if lr.eol == eolUnknown {
			lr.eol = eolLF
		}
		return i, 2, true
	}
	if lr.eol == eolUnknown {
		lr.eol = eolCR
	}
	return i, 1, true
}

// fill reads once into the free end of the buffer.
func (lr *lineReader) fill() {
	// Some readers return 0, nil now and then; a few retries tell them
	// from one that never makes progress.
	for range 100 {
		n, err := lr.r.Read(lr.buf[lr.end:])
		if n < 0 || n > len(lr.buf)-lr.end {
			lr.err = errors.New("reader returned an impossible count")
			return
		}
		lr.end += n
		if err != nil {
			lr.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	lr.err = io.ErrNoProgress
}

// skipLong keeps the head of a line that fills the buffer and discards the
// rest of it, up to maxSkip bytes.
func (lr *lineReader) skipLong() (line []byte, eof, long bool, err error) {
	lr.head = append(lr.head[:0], lr.buf[:maxLine]...)
	skipped := int64(0)
	for {
		if i, w, ok := lr.findEnd(lr.start); ok {
			lr.n += int64(i + w - lr.start)
			lr.start = i + w
			return lr.head, false, true, nil
		}
		keep := lr.start
		if lr.end > lr.start && lr.buf[lr.end-1] == '\r' && lr.eol != eolLF {
			keep = lr.end - 1 // perhaps the first half of "\r\n"
		} else {
			keep = lr.end
		}
		if lr.err != nil {
			lr.n += int64(lr.end - lr.start)
			lr.start = lr.end
			if lr.err == io.EOF {
				return lr.head, true, true, nil
			}
			return nil, false, false, lr.err
		}
		skipped += int64(keep - lr.start)
		lr.n += int64(keep - lr.start)
		if skipped > maxSkip {
			lr.err = errNoLineEnd
			return nil, false, false, lr.err
		}
		copy(lr.buf, lr.buf[keep:lr.end])
		lr.end -= keep
		lr.start = 0
		lr.fill()
	}
}
