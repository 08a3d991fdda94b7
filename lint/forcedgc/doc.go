// Package forcedgc defines an Analyzer that reports: runtime.GC or debug.FreeOSMemory in a loop or on a request path.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package forcedgc

import _ "embed"

//go:embed doc.md
var doc string
