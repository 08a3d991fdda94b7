//go:build race

package demo

// raceEnabled reports whether the race detector is on. Under it sync.Pool
// deliberately drops a share of the values put into it, so pooling cannot
// be shown to avoid allocations.
const raceEnabled = true
