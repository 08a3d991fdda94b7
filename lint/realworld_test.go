package lint_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/lint"
)

// TestReport runs the checks on real code for review:
//
//	GCDOCTOR_LINT_DIR=$(go env GOROOT)/src GCDOCTOR_LINT_PATTERNS="net/... encoding/..." go test -run TestReport -v ./lint
func TestReport(t *testing.T) {
	dir := os.Getenv("GCDOCTOR_LINT_DIR")
	if dir == "" {
		t.Skip("set GCDOCTOR_LINT_DIR (and GCDOCTOR_LINT_PATTERNS) to run")
	}
	res, err := lint.Run(dir, strings.Fields(os.Getenv("GCDOCTOR_LINT_PATTERNS")), lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Diagnostics {
		fixed := ""
		if len(d.SuggestedFixes) > 0 {
			fixed = " (fix)"
		}
		fmt.Printf("%s%s\n", d, fixed)
	}
	for _, b := range res.Broken {
		fmt.Printf("broken: %s: %d errors\n", b.Package, len(b.Errors))
	}
	for _, e := range res.AnalysisErrors {
		t.Errorf("analysis error: %s", e)
	}
}

// BenchmarkVetRatio compares the wall time of Run with go vet on the same
// standard-library packages, both with their caches warm (go vet keeps its
// results in the build cache, Run in its result cache), and reports Run's
// time over go vet's as lint/vet (the target is at most 1.5):
//
//	GCDOCTOR_BENCH_PATTERNS="net/... go/..." go test -run '^$' -bench VetRatio ./lint
//
// With GCDOCTOR_BENCH_COLD=1, Run does not use its result cache
// (GCDOCTOR_LINT_CACHE=off) and parses, type-checks and analyzes every
// package, while go vet still answers from its cache: the worst case for
// Run.
func BenchmarkVetRatio(b *testing.B) {
	patterns := strings.Fields(os.Getenv("GCDOCTOR_BENCH_PATTERNS"))
	if len(patterns) == 0 {
		patterns = []string{"encoding/..."}
	}
	cold := os.Getenv("GCDOCTOR_BENCH_COLD") != ""
	src := filepath.Join(runtime.GOROOT(), "src")
	vet := func() time.Duration {
		start := time.Now()
		cmd := exec.Command("go", append([]string{"vet"}, patterns...)...)
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Logf("go vet: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	ours := func() time.Duration {
		start := time.Now()
		if _, err := lint.Run(src, patterns, lint.Options{NoCache: cold}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	// Warm the build cache (and the result caches) for both.
	vet()
	ours()
	var tv, to time.Duration
	for b.Loop() {
		tv += vet()
		to += ours()
	}
	b.ReportMetric(float64(to)/float64(tv), "lint/vet")
}

// BenchmarkRun times Run on standard-library packages (GCDOCTOR_BENCH_PATTERNS,
// default encoding/...) without the result cache, build cache warm after
// the first iteration:
//
//	go test -run '^$' -bench Run -cpuprofile cpu.out ./lint
func BenchmarkRun(b *testing.B) {
	b.Setenv("GCDOCTOR_LINT_CACHE", "off") // measure the work, not the cache
	patterns := strings.Fields(os.Getenv("GCDOCTOR_BENCH_PATTERNS"))
	if len(patterns) == 0 {
		patterns = []string{"encoding/..."}
	}
	src := filepath.Join(runtime.GOROOT(), "src")
	for b.Loop() {
		if _, err := lint.Run(src, patterns, lint.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
