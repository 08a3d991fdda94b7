// Package regexpcompile defines an Analyzer that reports regular
// expressions and templates with constant text compiled on every loop
// iteration or every HTTP request.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package regexpcompile

import _ "embed"

//go:embed doc.md
var doc string
