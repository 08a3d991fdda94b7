// Package cache is a held-out workload for the pacer's accuracy tests: a
// service-like program that keeps a cache of about 100 MiB live and turns
// over short-lived request garbage against it. No parameter of the model
// was fitted to it (see ../README.md and docs/accuracy.md).
package cache

import (
	"encoding/binary"
	"testing"
)

const (
	entries   = 100_000 // cached values
	entrySize = 1 << 10 // bytes each: about 100 MiB live
)

var sink []byte

// BenchmarkCache serves one request per iteration: a 4 KiB response built
// from 4 cached values and dropped, and one cache entry replaced, so that
// the live heap stays at the cache's size while the garbage flows.
func BenchmarkCache(b *testing.B) {
	cache := make(map[uint64][]byte, entries)
	for i := range uint64(entries) {
		cache[i] = make([]byte, entrySize)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		resp := make([]byte, 0, 4*entrySize)
		for k := range uint64(4) {
			resp = append(resp, cache[(uint64(i)*7919+k*104729)%entries]...)
		}
		binary.LittleEndian.PutUint64(resp, uint64(i))
		sink = resp
		fresh := make([]byte, entrySize)
		fresh[0] = byte(i)
		cache[uint64(i)%entries] = fresh
	}
}
