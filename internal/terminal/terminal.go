// Package terminal keeps text from the evidence inert on a terminal.
//
// Symbols in a profile, fields of a meta.json, prefixes of log lines,
// benchmark names and the bodies of HTTP errors are all text gcdoctor did
// not write. Printed as they are, an escape sequence among them could set
// the terminal's title, clear the screen or move the cursor, a carriage
// return could overwrite what the line said, and a bidirectional override
// (U+202E) could make a line read other than it is. Escape shows each such
// character visibly instead, as Go source would write it (\x1b, \r,
// \u202e), so that the text reads as what it is.
package terminal

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// dangerous reports whether r must not reach a terminal as it is: C0 and C1
// controls other than newline and tab, DEL, the bidirectional controls, and
// the line and paragraph separators.
func dangerous(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return false
}

// Escape returns s with every character that could act on a terminal
// written visibly: \x1b for ESC, \r, \u202e, and \xNN for a byte that is
// not UTF-8. Text without such characters comes back unchanged.
func Escape(s string) string {
	clean := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if dangerous(r) || r == utf8.RuneError && n == 1 {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	var b bytes.Buffer
	appendEscaped(&b, []byte(s))
	return b.String()
}

func appendEscaped(b *bytes.Buffer, p []byte) {
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(b, `\x%02x`, p[i])
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && dangerous(r):
			fmt.Fprintf(b, `\x%02x`, r)
		case dangerous(r):
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.Write(p[i : i+n])
		}
		i += n
	}
}

// styles are the only escape sequences a Writer lets through when asked
// to: the SGR codes of gcdoctor's own text reports (bold, dim, red,
// yellow, cyan, reset), which change how text looks and nothing else.
var styles = [][]byte{
	[]byte("\x1b[0m"), []byte("\x1b[1m"), []byte("\x1b[2m"),
	[]byte("\x1b[31m"), []byte("\x1b[33m"), []byte("\x1b[36m"),
}

// Writer escapes, as Escape does, everything written through it; with
// Styles set it lets the SGR codes of gcdoctor's own reports through.
// Each Write is escaped on its own: write whole strings, not bytes cut
// inside a character.
type Writer struct {
	W      io.Writer
	Styles bool
}

// Write writes p escaped. It reports len(p) when all of it was written.
func (w *Writer) Write(p []byte) (int, error) {
	total := len(p)
	var b bytes.Buffer
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0x1b)
		if !w.Styles || i < 0 {
			appendEscaped(&b, p)
			break
		}
		appendEscaped(&b, p[:i])
		p = p[i:]
		n := 0
		for _, s := range styles {
			if bytes.HasPrefix(p, s) {
				n = len(s)
				break
			}
		}
		if n == 0 {
			appendEscaped(&b, p[:1])
			n = 1
		} else {
			b.Write(p[:n])
		}
		p = p[n:]
	}
	if _, err := w.W.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return total, nil
}
