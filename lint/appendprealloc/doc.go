// Package appendprealloc defines an Analyzer that reports slices grown by
// append, one element per iteration, in a loop whose iteration count is
// known before it starts.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package appendprealloc

import _ "embed"

//go:embed doc.md
var doc string
