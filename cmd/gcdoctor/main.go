// Command gcdoctor diagnoses Go programs whose garbage collector costs too
// much: it reads GODEBUG=gctrace=1 output (and, as they are added, traces,
// profiles and source), explains what the GC is doing and says what to change.
package main

import (
	"os"

	"github.com/gcdoctor/gcdoctor/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
