// Package largestackvar defines an Analyzer that reports: local variable too large for the stack.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package largestackvar

import _ "embed"

//go:embed doc.md
var doc string
