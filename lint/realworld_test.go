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

// TestVetRatio compares the wall time of Run with go vet on the same
// standard-library packages, both with their caches warm (go vet keeps its
// results in the build cache, Run in its result cache):
//
//	GCDOCTOR_BENCH=1 GCDOCTOR_BENCH_PATTERNS="net/... go/..." go test -run TestVetRatio -v ./lint
//
// With GCDOCTOR_BENCH_COLD=1, Run does not use its result cache
// (GCDOCTOR_LINT_CACHE=off) and parses, type-checks and analyzes every
// package, while go vet still answers from its cache: the worst case for
// Run, reported without a target.
func TestVetRatio(t *testing.T) {
	if os.Getenv("GCDOCTOR_BENCH") == "" {
		t.Skip("set GCDOCTOR_BENCH=1 to run")
	}
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
			t.Logf("go vet: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	ours := func() time.Duration {
		start := time.Now()
		if _, err := lint.Run(src, patterns, lint.Options{NoCache: cold}); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	// Warm the build cache (and the result caches) for both.
	vet()
	ours()
	const rounds = 3
	var tv, to time.Duration
	for range rounds {
		tv += vet()
		to += ours()
	}
	ratio := float64(to) / float64(tv)
	mode := "caches warm"
	if cold {
		mode = "lint without its result cache"
	}
	t.Logf("%v (%s): go vet %v, gcdoctor lint %v per run; ratio %.2f", patterns, mode, tv/rounds, to/rounds, ratio)
	if ratio > 1.5 && !cold {
		t.Errorf("lint is %.2f× slower than go vet (target ≤ 1.5×)", ratio)
	}
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
