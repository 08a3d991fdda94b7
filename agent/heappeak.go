package agent

import (
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// HeapPeakEnv names the environment variable through which gcdoctor run
// and gcdoctor doctor tell a program where to write its in-use heap
// profile at the peak (see WatchHeapPeak). A program run otherwise does
// not have it, and WatchHeapPeak then does nothing.
const HeapPeakEnv = "GCDOCTOR_HEAP_PEAK_PROFILE"

// The watcher's bounds: how often it reads the heap, and by how much the
// live heap must have grown since the last profile for another one to be
// written. With a growth of 1.25× a program whose live heap climbs from
// 4 MiB to 64 GiB writes at most 44 profiles, each replacing the last.
const (
	heapPeakEvery  = 20 * time.Millisecond
	heapPeakGrowth = 1.25
	heapPeakFloor  = 4 << 20 // no profile of a live heap below 4 MiB
)

// WatchHeapPeak writes the program's heap profile (the in-use and
// allocation profile /debug/pprof/heap serves) to the file $HeapPeakEnv
// names each time a collection ends with the live heap 1.25× above the
// one the file last described, so that the file ends holding the heap as
// it was when it was highest. A heap profile is published at the end of a
// collection, so "highest" is as the collector saw it: the live heap of
// the cycle with the most, not every byte of garbage before it. Without
// the variable it does nothing. The returned stop function looks one last
// time, stops the watcher and waits for it; call it before main returns:
//
//	defer agent.WatchHeapPeak()()
//
// Profiles are written atomically (a temporary file renamed over the
// last one), so the file is never half written, whenever the program ends.
func WatchHeapPeak() (stop func()) {
	path := os.Getenv(HeapPeakEnv)
	if path == "" {
		return func() {}
	}
	w := &heapPeak{path: path, done: make(chan struct{}), stopped: make(chan struct{})}
	w.samples = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"}}
	go w.run()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(w.done)
			<-w.stopped
		})
	}
}

// heapPeak is the state of one watcher.
type heapPeak struct {
	path    string
	samples []metrics.Sample
	cycles  uint64 // cycles seen at the last look
	written uint64 // live heap the file describes, bytes
	done    chan struct{}
	stopped chan struct{}
}

func (w *heapPeak) run() {
	defer close(w.stopped)
	t := time.NewTicker(heapPeakEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			w.look()
		case <-w.done:
			w.look()
			return
		}
	}
}

// look writes a profile when a collection ended since the last look with
// a live heap high enough.
func (w *heapPeak) look() {
	metrics.Read(w.samples)
	if w.samples[0].Value.Kind() != metrics.KindUint64 || w.samples[1].Value.Kind() != metrics.KindUint64 {
		return
	}
	cycles, live := w.samples[0].Value.Uint64(), w.samples[1].Value.Uint64()
	if cycles == w.cycles {
		return
	}
	w.cycles = cycles
	if live < heapPeakFloor || float64(live) < heapPeakGrowth*float64(w.written) {
		return
	}
	if writeHeapProfile(w.path) == nil {
		w.written = live
	}
}

// writeHeapProfile writes the heap profile to path atomically.
func writeHeapProfile(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".heap-peak-*")
	if err != nil {
		return err
	}
	err = f.Chmod(0o644)
	if err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
