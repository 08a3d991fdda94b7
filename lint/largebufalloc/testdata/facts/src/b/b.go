// Package b makes buffers for package a.
package b

// NewBuf returns a fresh 1 MiB buffer.
func NewBuf() []byte { return make([]byte, 1<<20) } // want NewBuf:"fresh 1048576-byte buffer"

// Small returns a buffer too small to matter.
func Small() []byte { return make([]byte, 512) }
