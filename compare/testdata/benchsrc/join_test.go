// Package benchsrc holds the benchmarks recorded in ../before.txt and
// ../after.txt (see ../README.md). It is under testdata so that the
// module's own tests never run it.
package benchsrc

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

var sink string

// BenchmarkJoin builds a string of 200 parts. With JOIN=concat it uses +=
// (the "before" of a typical fix); otherwise a strings.Builder (the "after").
func BenchmarkJoin(b *testing.B) {
	concat := os.Getenv("JOIN") == "concat"
	for b.Loop() {
		if concat {
			s := ""
			for range 200 {
				s += "part"
			}
			sink = s
			continue
		}
		var sb strings.Builder
		for range 200 {
			sb.WriteString("part")
		}
		sink = sb.String()
	}
}

// BenchmarkItoa is the same code before and after: it should come out
// unchanged.
func BenchmarkItoa(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		sink = strconv.Itoa(i % 1000)
	}
}
