package lint_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/lint"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// needCgo skips the test when cgo cannot build here, as the go command's
// own tests do (testenv.MustHaveCGO): cgo turned off, or no C compiler.
func needCgo(t *testing.T) {
	t.Helper()
	out, err := exec.Command("go", "env", "CGO_ENABLED", "CC").Output()
	if err != nil {
		t.Skipf("go env: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[0] != "1" {
		t.Skip("cgo is not enabled")
	}
	cc := strings.Fields(lines[1])
	if len(cc) == 0 {
		t.Skip("no C compiler configured")
	}
	if _, err := exec.LookPath(cc[0]); err != nil {
		t.Skipf("no C compiler: %v", err)
	}
}

// TestFixCgo fixes a package that uses cgo. The checks read cgo's rewrite
// of the file, whose byte offsets are not the file's: each fix must land
// where its diagnostic points, and a fix that edits a line cgo rewrote is
// refused with the reason.
func TestFixCgo(t *testing.T) {
	needCgo(t)
	dir := copyTestdata(t, "cgofix")
	file := filepath.Join(dir, "cg", "cg.go")
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "CGO_ENABLED=1")

	// The edits, as reported, replace the text the diagnostics are about.
	res, err := lint.Run(dir, nil, lint.Options{Env: env, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	wantReplaced := map[int]string{
		17: "var names []string",
		26: `fmt.Sprintf("%d", id)`,
	}
	for _, d := range res.Diagnostics {
		want, fixable := wantReplaced[d.Line]
		switch {
		case !fixable && len(d.SuggestedFixes) > 0:
			t.Errorf("line %d: fix offered on a line cgo rewrites: %+v", d.Line, d.SuggestedFixes)
		case !fixable && !strings.Contains(d.NoFix, "cgo rewrites line 33"):
			t.Errorf("line %d: no_fix = %q, want the line cgo rewrites", d.Line, d.NoFix)
		case fixable && len(d.SuggestedFixes) == 0:
			t.Errorf("line %d: no fix (%s)", d.Line, d.NoFix)
		case fixable:
			edits := d.SuggestedFixes[0].Edits
			e := edits[len(edits)-1]
			if got := string(orig[e.Offset:e.End]); got != want {
				t.Errorf("line %d: the edit replaces %q, want %q", d.Line, got, want)
			}
		}
	}
	if len(res.Diagnostics) != 3 {
		t.Errorf("%d diagnostics, want 3: %v", len(res.Diagnostics), res.Diagnostics)
	}

	res, err = lint.Run(dir, nil, lint.Options{Env: env, Fix: true, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "cgofix", "cg", "cg.go.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("cg.go after --fix:\n%s\nwant:\n%s", got, want)
	}
	if len(res.Fixed) != 1 || len(res.Skipped) != 1 || res.Skipped[0].File != filepath.Join("cg", "cg.go") ||
		!strings.Contains(res.Skipped[0].Reason, "cgo rewrites line 33") {
		t.Errorf("fixed %v, skipped %+v", res.Fixed, res.Skipped)
	}
	build := exec.Command("go", "build", "./...")
	build.Dir, build.Env = dir, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("go build after --fix: %v\n%s", err, out)
	}
}

// TestFixMainModuleOnly fixes a module that replaces a dependency with a
// directory of its own: the dependency's file keeps its finding and its
// fix, reported as skipped with the reason.
func TestFixMainModuleOnly(t *testing.T) {
	root := copyTestdata(t, "replace")
	dir := filepath.Join(root, "main")
	libFile := filepath.Join(root, "lib", "lib.go")
	libBefore, err := os.ReadFile(libFile)
	if err != nil {
		t.Fatal(err)
	}
	res, err := lint.Run(dir, []string{"./...", "example.com/lib"}, lint.Options{Fix: true, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Fixed) != 1 || res.Fixed[0] != filepath.Join("app", "app.go") {
		t.Errorf("fixed = %v, want app/app.go only", res.Fixed)
	}
	if libAfter, _ := os.ReadFile(libFile); !bytes.Equal(libAfter, libBefore) {
		t.Errorf("--fix changed the replaced module's file:\n%s", libAfter)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].File != libFile || res.Skipped[0].Fixes != 1 ||
		!strings.Contains(res.Skipped[0].Reason, "in module example.com/lib, replaced by ../lib") {
		t.Errorf("skipped = %+v", res.Skipped)
	}
	for _, d := range res.Diagnostics {
		if fixed := d.File == filepath.Join("app", "app.go"); d.Fixed != fixed {
			t.Errorf("%s: fixed = %v", d, d.Fixed)
		}
	}
}
