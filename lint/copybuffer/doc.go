// Package copybuffer defines an Analyzer that reports: io.Copy that allocates a buffer per iteration or per request.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package copybuffer

import _ "embed"

//go:embed doc.md
var doc string
