package unboundedgo_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gcdoctor/gcdoctor/lint/unboundedgo"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), unboundedgo.Analyzer, "a")
}
