package layout

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The project's limits; docs/architecture.md says why.
const (
	maxFuncLines          = 120 // lines of any function, method or literal outside tests
	maxCLILinesPerCommand = 90  // non-test lines of internal/cli per command it defines: flags and wiring only
)

// analyzers are the packages that read and judge evidence and never print:
// they return what they found, and report formats it.
var analyzers = []string{"gctrace", "heapprof", "exectrace", "escape", "pacer", "workers", "diagnose", "compare", "evidence", "bundle"}

// moduleTree parses the module this package belongs to, once for all the
// tests of a run.
var moduleTree = sync.OnceValues(func() (*tree, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	return loadTree(os.DirFS(root))
})

// moduleRoot finds the directory of the module's go.mod above the test's
// working directory, which is this package's.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func loadModule(t *testing.T) *tree {
	t.Helper()
	tr, err := moduleTree()
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.files) == 0 {
		t.Fatal("no Go files found in the module")
	}
	return tr
}

func TestFunctionLength(t *testing.T) {
	tr := loadModule(t)
	for _, v := range longFuncs(tr, maxFuncLines) {
		t.Errorf("%v: split it into named steps", v)
	}
}

func TestCLIIsWiring(t *testing.T) {
	tr := loadModule(t)
	lines, files := dirLines(tr, "internal/cli")
	if files == 0 {
		t.Fatal("internal/cli holds no Go files: update this test if it moved")
	}
	commands := countCommands(tr, "internal/cli")
	if limit := commands * maxCLILinesPerCommand; lines > limit {
		t.Errorf("internal/cli has %d non-test lines in %d files for %d commands, %d over the %d for flags and wiring: move analysis to its package and formatting to report",
			lines, files, commands, lines-limit, limit)
	}
}

func TestAnalyzersDoNotPrint(t *testing.T) {
	tr := loadModule(t)
	for _, dir := range analyzers {
		if _, files := dirLines(tr, dir); files == 0 {
			t.Errorf("analyzer package %s holds no Go files: update the list if it moved", dir)
		}
	}
	for _, v := range prints(tr, analyzers) {
		t.Errorf("%v: an analyzer returns what it found and report prints it", v)
	}
}
