package largebufalloc_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gcdoctor/gcdoctor/lint/largebufalloc"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), largebufalloc.Analyzer, "a")
}

// TestFactsAcrossPackages checks that a helper's FreshBuffer fact reaches
// the packages that import it, as under go vet -vettool.
func TestFactsAcrossPackages(t *testing.T) {
	analysistest.Run(t, filepath.Join(analysistest.TestData(), "facts"), largebufalloc.Analyzer, "c")
}
