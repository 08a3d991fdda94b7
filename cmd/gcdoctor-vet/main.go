// Command gcdoctor-vet runs gcdoctor's GC-cost checks under go vet:
//
//	go install github.com/gcdoctor/gcdoctor/cmd/gcdoctor-vet
//	go vet -vettool=$(command -v gcdoctor-vet) ./...
//
// Each check can be turned off with -NAME=false (for example
// -timeafterloop=false); see docs/rules.md.
package main

import (
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/gcdoctor/gcdoctor/lint"
)

func main() {
	unitchecker.Main(lint.Analyzers()...)
}
