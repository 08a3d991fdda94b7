package largestackvar_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gcdoctor/gcdoctor/lint/largestackvar"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), largestackvar.Analyzer, "a")
}
