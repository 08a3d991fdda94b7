package copybuffer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gcdoctor/gcdoctor/lint/copybuffer"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), copybuffer.Analyzer, "a")
}
