// Package stringconcatloop defines an Analyzer that reports strings built
// with += across the iterations of a loop.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package stringconcatloop

import _ "embed"

//go:embed doc.md
var doc string
