package pacer

import (
	"path/filepath"
	"testing"
)

func BenchmarkFit(b *testing.B) {
	seg := readSegment(b, filepath.Join("testdata", "real", "parser.gogc100.r1.log"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fit(seg, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPredict(b *testing.B) {
	m, _ := fitRun(b, "parser")
	for _, s := range []Setting{{GOGC: 50}, {GOGC: 800}, {GOGC: Off, MemoryLimit: 12 << 20}} {
		b.Run(s.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.Predict(s)
			}
		})
	}
}

func BenchmarkRecommend(b *testing.B) {
	m, _ := fitRun(b, "json-marshal")
	b.ReportAllocs()
	for b.Loop() {
		Recommend(m, 256<<20, CPU)
	}
}
