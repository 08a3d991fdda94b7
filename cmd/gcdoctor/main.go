// Command gcdoctor diagnoses Go programs whose garbage collector costs too
// much: it reads the evidence a program leaves (GODEBUG=gctrace=1 output,
// heap and allocs profiles, execution traces, the compiler's escape
// analysis, the source), says what the GC costs, why, what to change and
// how to check the change worked. The commands live in internal/cli.
package main

import (
	"os"

	"github.com/gcdoctor/gcdoctor/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
