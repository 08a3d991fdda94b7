package largebufalloc_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gcdoctor/gcdoctor/lint/largebufalloc"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), largebufalloc.Analyzer, "a")
}
