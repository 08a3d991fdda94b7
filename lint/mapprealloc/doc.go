// Package mapprealloc defines an Analyzer that reports maps created without
// a size hint and then filled, one entry per iteration, by a loop whose
// iteration count is known before it starts.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package mapprealloc

import _ "embed"

//go:embed doc.md
var doc string
