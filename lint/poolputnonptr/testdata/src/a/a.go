package a

import (
	"bytes"
	"sync"
)

var pool sync.Pool

type item struct{ a, b int }

type wrapper struct{ p *item }

func put(buf []byte, s string, it item, bb *bytes.Buffer, x any, w wrapper, m map[int]int) {
	pool.Put(buf[:0]) // want `sync.Pool.Put of a \[\]byte value allocates a copy on every call`
	pool.Put(s)       // want `sync.Pool.Put of a string value`
	pool.Put(it)      // want `sync.Pool.Put of a item value`

	// Not flagged: pointer-shaped or unknown.
	pool.Put(bb)
	pool.Put(&buf)
	pool.Put(x)
	pool.Put(w)
	pool.Put(m)
	pool.Put(nil)
}
