package agent

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/pprof/profile"
)

// TestWatchHeapPeak grows a live heap past the watcher's floor, one
// collection at a time, and checks that the file then holds a heap profile
// with in-use values that sees the retained bytes; and that without the
// variable nothing is written.
func TestWatchHeapPeak(t *testing.T) {
	for _, tt := range []struct {
		name  string
		set   bool
		write bool
	}{
		{"under gcdoctor", true, true},
		{"without the variable", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "heap.pb.gz")
			if tt.set {
				t.Setenv(HeapPeakEnv, path)
			} else {
				t.Setenv(HeapPeakEnv, "")
			}
			stop := WatchHeapPeak()
			var keep [][]byte
			for range 16 {
				keep = append(keep, make([]byte, 1<<20))
				runtime.GC()
				// The watcher looks once per tick; stop below looks
				// a last time, so the largest heap is always seen.
			}
			stop()
			stop() // a second call is harmless
			runtime.KeepAlive(keep)
			f, err := os.Open(path)
			if !tt.write {
				if err == nil {
					f.Close()
					t.Fatalf("%s written without %s", path, HeapPeakEnv)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p, err := profile.Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			idx := -1
			for i, st := range p.SampleType {
				if st.Type == "inuse_space" {
					idx = i
				}
			}
			if idx < 0 {
				t.Fatalf("no inuse_space in %v", p.SampleType)
			}
			var inuse int64
			for _, s := range p.Sample {
				inuse += s.Value[idx]
			}
			if inuse < heapPeakFloor {
				t.Errorf("the profile holds %d bytes in use, want ≥ %d", inuse, heapPeakFloor)
			}
		})
	}
}
