package timeafterloop_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gcdoctor/gcdoctor/lint/timeafterloop"
)

func Test(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), timeafterloop.Analyzer, "a")
}

// The diagnosis and the fix depend on the Go version of the module and of
// each file.
func TestVersions(t *testing.T) {
	for _, dir := range []string{"go122", "go123"} {
		t.Run(dir, func(t *testing.T) {
			analysistest.RunWithSuggestedFixes(t, filepath.Join(analysistest.TestData(), dir), timeafterloop.Analyzer, "./...")
		})
	}
}
