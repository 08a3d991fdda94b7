package gctrace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// DefaultMaxDecompressed is Options.MaxDecompressed when it is not set: 4
// GiB of text, some twenty million cycle lines. Parsing streams in bounded
// memory whatever the size; the cap bounds the time a small compressed
// file can cost.
const DefaultMaxDecompressed = 4 << 30

// sniffLen is how much of an input is looked at before parsing it.
const sniffLen = 4 << 10

// Encodings InputStats.Encoding names.
const (
	EncodingGzip    = "gzip"     // gzip-compressed, decompressed while read
	EncodingUTF16LE = "utf-16le" // UTF-16 with a byte order mark, as Windows PowerShell's > writes
	EncodingUTF16BE = "utf-16be"
)

// errTooLarge is the read error of a decompressed input beyond its cap.
var errTooLarge = errors.New("decompressed input too large")

// decode looks at the first bytes of an input and returns a reader of its
// text: gzip is decompressed, at most limit bytes of it, and UTF-16 with a
// byte order mark becomes UTF-8. Binary data is refused before more than
// sniffLen bytes are read. enc names what was undone, "" for plain text.
func decode(r io.Reader, limit int64) (text io.Reader, enc string, err error) {
	br := bufio.NewReaderSize(r, sniffLen)
	head, _ := br.Peek(sniffLen) // a read error shows again when parsing
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, EncodingGzip, fmt.Errorf("gzip-compressed, but the gzip header is damaged: %v", err)
		}
		cr := &capReader{r: gz, left: limit}
		br = bufio.NewReaderSize(cr, sniffLen)
		head, _ = br.Peek(sniffLen)
		if r, enc := utf16Text(br, head); r != nil {
			return r, EncodingGzip + "+" + enc, nil
		}
		if err := sniffText(head); err != nil {
			return nil, EncodingGzip, fmt.Errorf("%v, once gzip-decompressed", err)
		}
		return br, EncodingGzip, nil
	}
	if r, enc := utf16Text(br, head); r != nil {
		return r, enc, nil
	}
	if err := sniffText(head); err != nil {
		return nil, "", err
	}
	return br, "", nil
}

// utf16Text returns a reader of r as UTF-8 when head starts with a UTF-16
// byte order mark, and the encoding's name; nil otherwise.
func utf16Text(r io.Reader, head []byte) (io.Reader, string) {
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		return transform.NewReader(r, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder()), EncodingUTF16LE
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return transform.NewReader(r, unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder()), EncodingUTF16BE
	}
	return nil, ""
}

// sniffText returns an error saying what head is when it is not the start
// of a text log.
func sniffText(head []byte) error {
	if bytes.IndexByte(head, 0) < 0 {
		return nil
	}
	switch {
	case bytes.HasPrefix(head, []byte("go 1.")) && bytes.Contains(head[:min(len(head), 16)], []byte(" trace")):
		return errors.New("not a text log: a Go execution trace (read it with gcdoctor trace)")
	case looksUTF16(head):
		return errors.New("not a text log: UTF-16 without a byte order mark (convert it first: iconv -f UTF-16LE -t UTF-8)")
	}
	// The wording of earlier releases, which scripts may match.
	return errors.New("not a text log (binary data in the first lines)")
}

// looksUTF16 reports whether head reads as ASCII text in UTF-16, little
// or big endian: every other byte NUL.
func looksUTF16(head []byte) bool {
	if len(head) < 8 {
		return false
	}
	for _, odd := range []int{0, 1} {
		ok := true
		for i := 0; i+1 < len(head) && ok; i += 2 {
			c, z := head[i+1-odd], head[i+odd]
			ok = z == 0 && c != 0 && c < 0x80
		}
		if ok {
			return true
		}
	}
	return false
}

// capReader reads at most left bytes from r, then fails with errTooLarge
// if r has more.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		n, err := io.ReadFull(c.r, one[:])
		if n > 0 {
			return 0, errTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
