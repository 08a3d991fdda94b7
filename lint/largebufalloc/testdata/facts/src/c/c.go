// Package c calls package b's buffer helper: the fact crosses packages
// where the driver carries facts (go vet -vettool, golangci-lint).
package c

import "b"

func perItem(items []string) {
	for range items {
		_ = b.NewBuf() // want `1024 KiB buffer allocated on every iteration of a loop by NewBuf`
		_ = b.Small()
	}
}
