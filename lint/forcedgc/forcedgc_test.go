package forcedgc_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gcdoctor/gcdoctor/lint/forcedgc"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), forcedgc.Analyzer, "a")
}
