// Package timeafterloop defines an Analyzer that reports time.After and
// time.Tick called on every iteration of a loop.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package timeafterloop

import _ "embed"

//go:embed doc.md
var doc string
