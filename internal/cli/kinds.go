package cli

// The kinds of evidence that packages outside evidence, diagnose and report
// add register themselves when they are imported here, with a blank import
// each (docs/architecture.md, "Adding a kind of evidence"). The built-in
// kinds need none.

import _ "github.com/gcdoctor/gcdoctor/goroutineleak" // Go 1.26's goroutine-leak profile
