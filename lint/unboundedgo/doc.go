// Package unboundedgo defines an Analyzer that reports: a goroutine per received value, with no bound on concurrency.
//
// The full documentation is in doc.md (also the Analyzer's Doc).
package unboundedgo

import _ "embed"

//go:embed doc.md
var doc string
