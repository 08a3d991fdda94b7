package gctrace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// realLogs concatenates every real log in testdata: the corpus and the logs
// recorded from Go toolchains and programs of every era.
func realLogs(tb testing.TB) []byte {
	tb.Helper()
	var buf bytes.Buffer
	for _, pat := range []string{"testdata/corpus/*.log", "testdata/real/*.log"} {
		files, _ := filepath.Glob(pat)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			buf.Write(data)
			if n := len(data); n > 0 && data[n-1] != '\n' {
				buf.WriteByte('\n')
			}
		}
	}
	if buf.Len() == 0 {
		tb.Fatal("no logs")
	}
	return buf.Bytes()
}

func BenchmarkParse(b *testing.B) {
	data := realLogs(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data), "bench.log", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReader measures the line reader alone, without segmentation.
func BenchmarkReader(b *testing.B) {
	data := realLogs(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(data), "bench.log")
		for r.Scan() {
		}
	}
}

// naiveCycle is the baseline: one regular expression per line, the way
// gctrace logs are usually scraped (and how gcvis parsed them). It only
// understands the Go 1.7+ format.
var naiveCycle = regexp.MustCompile(`gc (\d+) @([\d.]+)s (\d+)%: ([\d.]+)\+([\d.]+)\+([\d.]+) ms clock, ([\d.]+)\+([\d.]+)/([\d.]+)/([\d.]+)\+([\d.]+) ms cpu, (\d+)->(\d+)->(\d+) MB, (\d+) MB goal, (?:(\d+) MB stacks, (\d+) MB globals, )?(\d+) P`)

// naiveParse converts every captured field, as a parser that fills a
// cycle record must.
func naiveParse(r io.Reader) (cycles int, pauseMS float64) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var f [18]float64
	for sc.Scan() {
		m := naiveCycle.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		cycles++
		for i, s := range m[1:] {
			if s != "" {
				f[i], _ = strconv.ParseFloat(s, 64)
			}
		}
		pauseMS += f[3] + f[5]
	}
	return
}

func BenchmarkParseNaiveRegexp(b *testing.B) {
	data := realLogs(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		naiveParse(bytes.NewReader(data))
	}
}

// repeatReader yields data over and over until n bytes have been read, so
// a huge input can be streamed without being held in memory.
type repeatReader struct {
	data []byte
	off  int
	left int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := copy(p, r.data[r.off:])
	if int64(n) > r.left {
		n = int(r.left)
	}
	r.off = (r.off + n) % len(r.data)
	r.left -= int64(n)
	return n, nil
}

// processReader writes one endless process: real Go 1.18+ lines with the
// cycle number and time counting up, so everything lands in one segment.
type processReader struct {
	buf  []byte
	num  int
	left int64
}

func (r *processReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	for len(r.buf) < len(p) {
		r.num++
		r.buf = fmt.Appendf(r.buf, "gc %d @%d.%03ds 8%%: 0.%d+%d+0.0%d ms clock, 0.52+2.0/8.2/0+0.24 ms cpu, %d->%d->%d MB, %d MB goal, 0 MB stacks, 0 MB globals, 2 P\n",
			r.num, r.num/10, r.num%10*100, r.num%97, 10+r.num%31, r.num%89, 13+r.num%7, 15+r.num%5, 9, 16+r.num%3)
	}
	n := copy(p, r.buf)
	if int64(n) > r.left {
		n = int(r.left)
	}
	r.buf = r.buf[:copy(r.buf, r.buf[n:])]
	r.left -= int64(n)
	return n, nil
}

// TestBoundedMemory streams 1 GB of logs, once as many processes (the real
// logs repeated) and once as one endless process, and checks the heap stays
// under 100 MB. Skipped with -short, and without GCDOCTOR_LONG=1.
func TestBoundedMemory(t *testing.T) {
	if os.Getenv("GCDOCTOR_LONG") == "" {
		t.Skip("streams 2 GB: a long test; set GCDOCTOR_LONG=1 to run it")
	}
	if testing.Short() {
		t.Skip("streams 2 GB")
	}
	const size = 1 << 30
	for _, tc := range []struct {
		name string
		r    io.Reader
	}{
		{"repeated-real-logs", &repeatReader{data: realLogs(t), left: size}},
		{"one-process", &processReader{left: size}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GC()
			var peak uint64
			sample := func() {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms) // stops the world: sample sparingly
				peak = max(peak, ms.HeapInuse)
			}
			done := make(chan *Log)
			go func() {
				l, err := Parse(tc.r, tc.name, Options{})
				if err != nil {
					t.Error(err)
				}
				done <- l
			}()
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			var l *Log
			for l == nil {
				select {
				case l = <-done:
				case <-tick.C:
					sample()
				}
			}
			sample()
			t.Logf("%d segments (%d not kept), %d cycles; peak heap in use %d MB", len(l.Segments), l.SegmentsDropped, l.Cycles(), peak>>20)
			if peak > 100<<20 {
				t.Errorf("heap in use reached %d MB streaming 1 GB", peak>>20)
			}
		})
	}
}
