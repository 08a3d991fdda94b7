// Package sprintfconv defines an Analyzer that reports fmt.Sprintf calls in
// loops whose only job is to turn one integer, string or bool into a string.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package sprintfconv

import _ "embed"

//go:embed doc.md
var doc string
