package appendprealloc_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gcdoctor/gcdoctor/lint/appendprealloc"
)

func Test(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), appendprealloc.Analyzer, "a")
}
