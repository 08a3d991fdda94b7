package poolputnonptr_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gcdoctor/gcdoctor/lint/poolputnonptr"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), poolputnonptr.Analyzer, "a")
}
