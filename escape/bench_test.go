package escape

import (
	"bytes"
	"os"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/fixtures/allocs.m2.txt")
	if err != nil {
		b.Fatal(err)
	}
	data = bytes.Repeat(data, 100)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data), "/src"); err != nil {
			b.Fatal(err)
		}
	}
}
