// Package largebufalloc defines an Analyzer that reports: large buffer allocated per iteration or per request.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package largebufalloc

import _ "embed"

//go:embed doc.md
var doc string
