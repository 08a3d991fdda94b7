// Package poolputnonptr defines an Analyzer that reports: sync.Pool.Put of a value that is not a pointer.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package poolputnonptr

import _ "embed"

//go:embed doc.md
var doc string
