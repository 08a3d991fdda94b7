package gctrace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"
	"unicode/utf16"
)

// sampleLog is a real log with build headers, benchmark output and cycles
// of several processes.
const sampleLog = "testdata/real/bench-encoding-json.log"

func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func utf16Bytes(s string, bigEndian bool) []byte {
	var out []byte
	for _, u := range utf16.Encode([]rune("\ufeff" + s)) {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

// segmentsOf renders what a Log found without the per-input byte counts,
// which differ between encodings of the same text.
func segmentsOf(l *Log) string {
	var kept []string
	for _, line := range strings.Split(dump(l), "\n") {
		if !strings.HasPrefix(line, "input ") {
			kept = append(kept, line)
		}
	}
	return fmt.Sprintf("lines %d\n", l.Inputs[0].Lines) + strings.Join(kept, "\n")
}

// TestEncodingsAndLineEnds reads one log written in every way a careless
// pipeline writes it, and wants the same cycles from each.
func TestEncodingsAndLineEnds(t *testing.T) {
	base, err := os.ReadFile(sampleLog)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Parse(bytes.NewReader(base), "x.log", Options{})
	if err != nil {
		t.Fatal(err)
	}
	crlf := bytes.ReplaceAll(base, []byte("\n"), []byte("\r\n"))
	cr := bytes.ReplaceAll(base, []byte("\n"), []byte("\r"))
	tests := []struct {
		name string
		data []byte
		enc  string
	}{
		{"lf", base, ""},
		{"crlf", crlf, ""},
		{"cr", cr, ""},
		{"bom-lf", append([]byte("\ufeff"), base...), ""},
		{"bom-crlf", append([]byte("\ufeff"), crlf...), ""},
		{"bom-cr", append([]byte("\ufeff"), cr...), ""},
		{"gzip", gzipped(t, base), EncodingGzip},
		{"gzip-bom-crlf", gzipped(t, append([]byte("\ufeff"), crlf...)), EncodingGzip},
		{"gzip-multistream", append(gzipped(t, base[:len(base)/2]), gzipped(t, base[len(base)/2:])...), EncodingGzip},
		{"utf16le", utf16Bytes(string(crlf), false), EncodingUTF16LE},
		{"utf16be", utf16Bytes(string(base), true), EncodingUTF16BE},
		{"gzip-utf16le", gzipped(t, utf16Bytes(string(crlf), false)), EncodingGzip + "+" + EncodingUTF16LE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(bytes.NewReader(tt.data), "x.log", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g, w := segmentsOf(got), segmentsOf(want); g != w {
				t.Errorf("differs from the plain LF log:\n%s", diffLines(w, g))
			}
			if got.Inputs[0].Encoding != tt.enc {
				t.Errorf("encoding %q, want %q", got.Inputs[0].Encoding, tt.enc)
			}
			if got.Segments[0].FirstLine != want.Segments[0].FirstLine {
				t.Errorf("first cycle on line %d, want %d", got.Segments[0].FirstLine, want.Segments[0].FirstLine)
			}
		})
	}
}

// TestLineEnds checks line numbering and line contents at every kind of
// line end, including ends that fall across reads.
func TestLineEnds(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"lf", "a\nb\n", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"cr", "a\rb\r", []string{"a", "b"}},
		{"cr-no-final", "a\rb", []string{"a", "b"}},
		{"cr-blank-lines", "a\r\r\rb", []string{"a", "", "", "b"}},
		{"lf-keeps-inner-cr", "a\nb\rx\nc\n", []string{"a", "b\rx", "c"}},
		{"first-end-decides-cr", "a\rx\nb\n", []string{"a", "x", "b"}},
		{"crlf-then-lone-cr", "a\r\nb\rc\r\n", []string{"a", "b\rc"}},
		{"cr-then-lf", "a\rb\nc\r\n", []string{"a", "b", "c"}},
		{"final-cr", "a\nb\r", []string{"a", "b"}},
		{"bom-only", "\ufeff", nil},
		{"bom", "\ufeffa\nb", []string{"a", "b"}},
		{"bom-not-at-start", "a\n\ufeffb\n", []string{"a", "\ufeffb"}},
		{"blank", "\n\n", []string{"", ""}},
	}
	for _, tt := range tests {
		// One byte per read puts every line end across a read boundary.
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.in)
			if oneByte {
				r = &oneByteReader{r}
			}
			rd := NewReader(r, "t.log")
			var got []string
			for rd.Scan() {
				rec := rd.Record()
				if rec.Line != len(got)+1 {
					t.Errorf("%s: line %d numbered %d", tt.name, len(got)+1, rec.Line)
				}
				got = append(got, string(rec.Text))
			}
			if rd.Err() != nil {
				t.Errorf("%s: %v", tt.name, rd.Err())
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("%s (one byte per read %v): lines %q, want %q", tt.name, oneByte, got, tt.want)
			}
			if rd.Offset() != int64(len(tt.in)) {
				t.Errorf("%s: offset %d, want %d", tt.name, rd.Offset(), len(tt.in))
			}
		}
	}
}

type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// endlessReader yields one byte forever, and fails the test when more than
// budget bytes are read: a parser that does not stop on its own fails
// instead of hanging.
type endlessReader struct {
	t      *testing.T
	b      byte
	budget int64
	n      int64
}

func (e *endlessReader) Read(p []byte) (int, error) {
	if e.n > e.budget {
		e.t.Errorf("read more than %d bytes of an endless input", e.budget)
		return 0, io.EOF
	}
	for i := range p {
		p[i] = e.b
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestEndlessInputs feeds streams that never end and never hold a line end,
// as /dev/zero does: parsing must stop by itself with a clear error.
func TestEndlessInputs(t *testing.T) {
	const cycle = "gc 1 @0.1s 1%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB goal, 2 P\n"
	tests := []struct {
		name   string
		prefix string
		b      byte
		want   string
		budget int64
	}{
		{"nul", "", 0, "zero.log: not a text log (binary data in the first lines)", sniffLen},
		{"nul-after-cycle", cycle, 0, "zero.log: not a text log (binary data in the first lines)", sniffLen},
		{"text", "", 'x', "zero.log:1: no line end within 64 MiB", maxSkip + 2*maxLine},
		{"text-after-cycle", cycle, 'x', "zero.log:2: no line end within 64 MiB", maxSkip + 2*maxLine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			er := &endlessReader{t: t, b: tt.b, budget: tt.budget + 64<<10}
			l, err := Parse(io.MultiReader(strings.NewReader(tt.prefix), er), "zero.log", Options{})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
			if tt.prefix != "" && tt.b != 0 && l.Cycles() != 1 {
				t.Errorf("%d cycles kept, want the one before the endless line", l.Cycles())
			}
		})
	}
}

// TestLongLines checks that a line longer than 64 KiB is a positioned
// error, skipped, whatever its line end, and that reading goes on.
func TestLongLines(t *testing.T) {
	const cycle = "gc 1 @0.1s 1%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB goal, 2 P"
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		for _, n := range []int{maxLine - 1, maxLine, maxLine + 1, maxLine + 2, 3 << 20} {
			in := "text" + eol + strings.Repeat("y", n) + eol + cycle + eol
			for _, oneByte := range []bool{false, true} {
				if oneByte && n > maxLine+2 {
					continue
				}
				var r io.Reader = strings.NewReader(in)
				if oneByte {
					r = &oneByteReader{r}
				}
				l, err := Parse(r, "long.log", Options{})
				if err != nil {
					t.Fatalf("eol %q, %d bytes: %v", eol, n, err)
				}
				in0 := l.Inputs[0]
				if l.Cycles() != 1 || in0.Lines != 3 {
					t.Errorf("eol %q, %d bytes: %d cycles on %d lines, want 1 on 3", eol, n, l.Cycles(), in0.Lines)
				}
				long := n > maxLine
				if long != (in0.NErrors == 1) {
					t.Errorf("eol %q, %d bytes: %d errors", eol, n, in0.NErrors)
				}
				if long && in0.NErrors == 1 && in0.Errors[0].Error() != "long.log:2: line longer than 64 KiB: skipped" {
					t.Errorf("eol %q: error %q", eol, in0.Errors[0])
				}
			}
		}
	}
}

func TestBinaryRefusedEarly(t *testing.T) {
	trace := append([]byte("go 1.23 trace\x00\x00\x00"), make([]byte, 100)...)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"trace", trace, "t.log: not a text log: a Go execution trace (read it with gcdoctor trace)"},
		{"utf16-no-bom", utf16Bytes("gc 1 @0.1s 1%: 0.1+1+0.1 ms clock\n", false)[2:], "t.log: not a text log: UTF-16 without a byte order mark"},
		{"gzip-binary", gzipped(t, []byte{0x0a, 0x02, 0x00, 0x01}), "t.log: not a text log (binary data in the first lines), once gzip-decompressed"},
		{"gzip-damaged-header", []byte{0x1f, 0x8b, 0x00, 0x00, 0x00}, "t.log: gzip-compressed, but the gzip header is damaged"},
	}
	for _, tt := range tests {
		_, err := Parse(bytes.NewReader(tt.data), "t.log", Options{})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestGzipLimits(t *testing.T) {
	base, err := os.ReadFile(sampleLog)
	if err != nil {
		t.Fatal(err)
	}
	full := gzipped(t, base)
	t.Run("cut", func(t *testing.T) {
		l, err := Parse(bytes.NewReader(full[:len(full)*2/3]), "cut.log.gz", Options{})
		if err == nil || !strings.Contains(err.Error(), "cut.log.gz: gzip data ends early (the file was cut short)") {
			t.Fatalf("err %v", err)
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("err %v does not wrap io.ErrUnexpectedEOF", err)
		}
		if l.Cycles() == 0 {
			t.Error("the cycles before the cut are lost")
		}
	})
	t.Run("corrupt", func(t *testing.T) {
		bad := bytes.Clone(full)
		bad[len(bad)-6] ^= 0xff // the CRC
		_, err := Parse(bytes.NewReader(bad), "bad.log.gz", Options{})
		if err == nil || !strings.Contains(err.Error(), "bad.log.gz: corrupt gzip data") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("cap", func(t *testing.T) {
		limit := int64(len(base) / 2)
		l, err := Parse(bytes.NewReader(full), "bomb.log.gz", Options{MaxDecompressed: limit})
		if err == nil || !strings.HasPrefix(err.Error(), "bomb.log.gz: decompressed log exceeds 0 MiB; stopped after line") {
			t.Fatalf("err %v", err)
		}
		if l.Inputs[0].Bytes != limit || l.Cycles() == 0 {
			t.Errorf("read %d bytes and %d cycles, want %d bytes and the cycles in them", l.Inputs[0].Bytes, l.Cycles(), limit)
		}
	})
	t.Run("at-cap", func(t *testing.T) {
		if _, err := Parse(bytes.NewReader(full), "exact.log.gz", Options{MaxDecompressed: int64(len(base))}); err != nil {
			t.Fatalf("a log exactly at the cap: %v", err)
		}
	})
}

// TestKeptCycles checks what KeepCycles keeps of a log with more cycles
// than MaxCycles, and that CyclesWallS spans exactly the kept ones.
func TestKeptCycles(t *testing.T) {
	var in strings.Builder
	line := func(n int, at float64) {
		fmt.Fprintf(&in, "gc %d @%gs 1%%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB goal, 2 P\n", n, at)
	}
	for i := 1; i <= 30; i++ {
		line(i, float64(i))
	}
	for i := 1; i <= 10; i++ { // a second process
		line(i, float64(100+i))
	}
	tests := []struct {
		max        int
		kept       []int
		truncated  []bool
		wallS      []float64
		dropped    int
		summaryCyc []int
	}{
		{0, []int{30, 10}, []bool{false, false}, []float64{29.0012, 9.0012}, 0, []int{30, 10}},
		{20, []int{20, 0}, []bool{true, true}, []float64{19.0012, math.NaN()}, 20, []int{30, 10}},
		{35, []int{30, 5}, []bool{false, true}, []float64{29.0012, 4.0012}, 5, []int{30, 10}},
	}
	for _, tt := range tests {
		l, err := Parse(strings.NewReader(in.String()), "k.log", Options{KeepCycles: true, MaxCycles: tt.max})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Segments) != 2 || l.CyclesDropped != tt.dropped {
			t.Fatalf("max %d: %d segments, %d dropped", tt.max, len(l.Segments), l.CyclesDropped)
		}
		for i, s := range l.Segments {
			if len(s.Cycles) != tt.kept[i] || s.CyclesTruncated != tt.truncated[i] || s.Summary.Cycles != tt.summaryCyc[i] {
				t.Errorf("max %d, segment %d: kept %d truncated %v of %d", tt.max, i, len(s.Cycles), s.CyclesTruncated, s.Summary.Cycles)
			}
			w := s.CyclesWallS()
			if !(math.Abs(w-tt.wallS[i]) < 1e-9 || math.IsNaN(w) && math.IsNaN(tt.wallS[i])) {
				t.Errorf("max %d, segment %d: CyclesWallS %v, want %v", tt.max, i, w, tt.wallS[i])
			}
			if !s.CyclesTruncated && s.CyclesWallS() != s.Summary.WallS {
				t.Errorf("max %d, segment %d: CyclesWallS %v differs from Summary.WallS %v with every cycle kept", tt.max, i, w, s.Summary.WallS)
			}
		}
	}
}

// TestUnlistedSegmentsKeepNoCycles checks that segments beyond MaxSegments
// do not spend the budget of kept cycles.
func TestUnlistedSegmentsKeepNoCycles(t *testing.T) {
	var in strings.Builder
	for p := 0; p < 5; p++ {
		in.WriteString("gc 1 @0.1s 1%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu, 4->4->1 MB, 5 MB goal, 2 P\n")
	}
	l, err := Parse(strings.NewReader(in.String()), "u.log", Options{KeepCycles: true, MaxSegments: 2, MaxCycles: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Segments) != 2 || l.SegmentsDropped != 3 || l.CyclesDropped != 0 {
		t.Errorf("%d segments, %d dropped, %d cycles dropped; want 2, 3, 0", len(l.Segments), l.SegmentsDropped, l.CyclesDropped)
	}
}
