package sprintfconv_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gcdoctor/gcdoctor/lint/sprintfconv"
)

func Test(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), sprintfconv.Analyzer, "a")
}
