package lint_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/gcdoctor/gcdoctor/lint"
)

// TestEveryCheckFiresAndStaysQuiet holds every check to a firing case and
// a quiet one in its testdata (lint/NAME/testdata/src): a line with a
// `// want` comment that the check flags, and a line of the same pattern
// without one that it leaves alone — the near miss (a slice made with its
// capacity for appendprealloc, time.After outside a loop for
// timeafterloop). The testdata is checked by Run, as gcdoctor lint checks
// code (the analyzers' own tests match the messages and the fixes).
//
// pattern is the code the check looks at, matched against each line with
// its comment removed. A check missing from the table, or whose testdata
// lacks either case, fails the test by name.
func TestEveryCheckFiresAndStaysQuiet(t *testing.T) {
	patterns := map[string]string{
		"appendprealloc":   `\bappend\(`,
		"copybuffer":       `\bio\.Copy(N|Buffer)?\(`,
		"forcedgc":         `\bruntime\.GC\(\)|\bdebug\.FreeOSMemory\(\)`,
		"largebufalloc":    `\bmake\(\[\]`,
		"largestackvar":    `\bvar \w+ \S|\w+ := \*`,
		"mapprealloc":      `\w\[[^\]]+\] = `,
		"poolputnonptr":    `\.Put\(`,
		"regexpcompile":    `\bregexp\.(Must)?Compile(POSIX)?\(`,
		"sprintfconv":      `\bfmt\.Sprint(f|ln)?\(`,
		"stringconcatloop": `\w \+= `,
		"timeafterloop":    `\btime\.After\(`,
		"unboundedgo":      `\bgo \w`,
	}
	var noEntry, noFiring, noQuiet []string
	for _, a := range lint.Analyzers() {
		expr, ok := patterns[a.Name]
		if !ok {
			noEntry = append(noEntry, a.Name)
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			gopath, err := filepath.Abs(filepath.Join(a.Name, "testdata"))
			if err != nil {
				t.Fatal(err)
			}
			src := filepath.Join(gopath, "src")
			want, quiet := scanCases(t, src, regexp.MustCompile(expr))
			firing, silent := 0, 0
			if len(want)+len(quiet) > 0 {
				env := append(os.Environ(), "GO111MODULE=off", "GOPATH="+gopath, "GOFLAGS=")
				res, err := lint.Run(src, []string{"./..."}, lint.Options{Analyzers: []*analysis.Analyzer{a}, Env: env, NoCache: true})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Broken) > 0 {
					t.Errorf("testdata does not compile: %+v", res.Broken)
				}
				flagged := map[string]bool{}
				for _, d := range res.Diagnostics {
					key := fmt.Sprintf("%s:%d", d.File, d.Line)
					flagged[key] = true
					if !want[key] {
						t.Errorf("%s: flagged without a // want: %s", key, d.Message)
					}
				}
				for key := range want {
					if flagged[key] {
						firing++
					} else {
						t.Errorf("%s: // want, not flagged", key)
					}
				}
				for key := range quiet {
					if !flagged[key] {
						silent++
					}
				}
			}
			t.Logf("%d firing, %d quiet", firing, silent)
			if firing == 0 {
				noFiring = append(noFiring, a.Name)
			}
			if silent == 0 {
				noQuiet = append(noQuiet, a.Name)
			}
		})
	}
	if len(noEntry) > 0 {
		t.Errorf("checks without a pattern in this test's table: %s", strings.Join(noEntry, ", "))
	}
	if len(noFiring) > 0 {
		t.Errorf("checks without a firing case (a line with // want that is flagged) in testdata/src: %s", strings.Join(noFiring, ", "))
	}
	if len(noQuiet) > 0 {
		t.Errorf("checks without a quiet case (a line of their pattern not flagged) in testdata/src: %s", strings.Join(noQuiet, ", "))
	}
}

// factWant matches a // want comment that expects facts only.
var factWant = regexp.MustCompile(`^\s*want(\s+\w+:"[^"]*")+\s*$`)

// scanCases returns the lines under src, as "file:line" with the file
// relative to src, that have a `// want` comment, and those outside
// comments that match pattern and have none.
func scanCases(t *testing.T, src string, pattern *regexp.Regexp) (want, quiet map[string]bool) {
	t.Helper()
	want, quiet = map[string]bool{}, map[string]bool{}
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			key := fmt.Sprintf("%s:%d", rel, line)
			code, comment, _ := strings.Cut(sc.Text(), "//")
			switch {
			case factWant.MatchString(comment):
				// An expected fact (analysistest's name:"text"), not
				// a diagnostic.
			case strings.HasPrefix(strings.TrimSpace(comment), "want "):
				want[key] = true
			case pattern.MatchString(code):
				quiet[key] = true
			}
		}
		return sc.Err()
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return want, quiet
}
