package terminal

import (
	"bytes"
	"testing"
)

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain text, 1.5 MB", "plain text, 1.5 MB"},
		{"tab\tand\nnewline", "tab\tand\nnewline"},
		{"main.\x1b]0;pwned\x07f", `main.\x1b]0;pwned\x07f`},
		{"clear\x1b[2J\x1b[H", `clear\x1b[2J\x1b[H`},
		{"ok\rFAIL", `ok\rFAIL`},
		{"evil\u202etxt.go", `evil\u202etxt.go`},
		{"c1\u009b31m", `c1\u009b31m`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"del\x7f", `del\x7f`},
		{"línea ünicode 日本", "línea ünicode 日本"},
	} {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWriter(t *testing.T) {
	for _, tt := range []struct {
		styles  bool
		in, out string
	}{
		{false, "\x1b[1mbold\x1b[0m", `\x1b[1mbold\x1b[0m`},
		{true, "\x1b[1mbold\x1b[0m", "\x1b[1mbold\x1b[0m"},
		{true, "\x1b[1mtitle\x1b]0;x\x07\x1b[0m", "\x1b[1mtitle\\x1b]0;x\\x07\x1b[0m"},
		{true, "\x1b[2Jgone", `\x1b[2Jgone`},
		{true, "end\x1b", `end\x1b`},
	} {
		var b bytes.Buffer
		w := &Writer{W: &b, Styles: tt.styles}
		n, err := w.Write([]byte(tt.in))
		if err != nil || n != len(tt.in) {
			t.Errorf("Write(%q) = %d, %v", tt.in, n, err)
		}
		if b.String() != tt.out {
			t.Errorf("styles %v: %q written as %q, want %q", tt.styles, tt.in, b.String(), tt.out)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[2J", "a\u202eb", "\xff\xfe", "\x1b[1mx\x1b[0m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		for _, r := range e {
			if dangerous(r) {
				t.Fatalf("Escape(%q) = %q keeps %U", s, e, r)
			}
		}
		var b bytes.Buffer
		(&Writer{W: &b, Styles: true}).Write([]byte(s))
		out := b.Bytes()
		for i := 0; i < len(out); i++ {
			if out[i] != 0x1b {
				continue
			}
			ok := false
			for _, st := range styles {
				if bytes.HasPrefix(out[i:], st) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("Writer let %q through from %q", out[i:], s)
			}
		}
	})
}
