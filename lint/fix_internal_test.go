package lint

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/tools/go/packages"
)

// fullDisk writes the first limit bytes, then fails as a full disk does.
type fullDisk struct {
	w     io.Writer
	limit int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= d.limit {
		d.limit -= len(p)
		return d.w.Write(p)
	}
	n, _ := d.w.Write(p[:d.limit])
	d.limit = 0
	return n, syscall.ENOSPC
}

// writeModule writes a one-package module with a fixable finding and
// returns its directory and the package's file.
func writeModule(t *testing.T, mode os.FileMode) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	src := "package p\n\n// Names lists the users' names.\nfunc Names(users []string) []string {\n\tvar names []string\n\tfor _, u := range users {\n\t\tnames = append(names, u)\n\t}\n\treturn names\n}\n"
	file = filepath.Join(dir, "p.go")
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/p\n\ngo 1.23\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(src), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return dir, file
}

// TestFixWriteFails makes the write of a fixed file fail part-way, as on
// a full disk: the source must be left as it was, with no temporary file
// beside it, and the run must say so rather than report the file fixed.
func TestFixWriteFails(t *testing.T) {
	for _, limit := range []int{0, 40} {
		dir, file := writeModule(t, 0o640)
		before, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		testHookWriter = func(w io.Writer) io.Writer { return &fullDisk{w: w, limit: limit} }
		res, err := Run(dir, nil, Options{Fix: true, NoCache: true})
		testHookWriter = nil
		if err == nil || !strings.Contains(err.Error(), "no space left") || !strings.Contains(err.Error(), "left unchanged") {
			t.Errorf("limit %d: error = %v, want the full disk, file left unchanged", limit, err)
		}
		if res == nil || len(res.Fixed) != 0 || len(res.Diagnostics) != 1 || res.Diagnostics[0].Fixed {
			t.Errorf("limit %d: result %+v, want the finding and no file fixed", limit, res)
		}
		after, _ := os.ReadFile(file)
		if !bytes.Equal(after, before) {
			t.Errorf("limit %d: source changed by a failed write:\n%s", limit, after)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 2 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("limit %d: directory holds %v, want go.mod and p.go", limit, names)
		}
	}

	// The same fix, written in full, keeps the file's mode.
	dir, file := writeModule(t, 0o640)
	res, err := Run(dir, nil, Options{Fix: true, NoCache: true})
	if err != nil || len(res.Fixed) != 1 {
		t.Fatalf("fix: %v, %+v", err, res)
	}
	after, _ := os.ReadFile(file)
	if !bytes.Contains(after, []byte("names := make([]string, 0, len(users))")) {
		t.Errorf("not fixed:\n%s", after)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode after the fix: %v, %v; want 0640", st.Mode(), err)
	}
}

// TestFixPlanLeavesGOROOT plans the fixes of a standard-library package
// with findings, as lint --fix std would, without writing anything: no
// file of GOROOT may be in the plan, and each must be listed as skipped.
func TestFixPlanLeavesGOROOT(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a standard-library package")
	}
	dir, _ := writeModule(t, 0o644)
	const pkg = "go/build/constraint" // has a fixable finding (appendprealloc)
	res, err := Run(dir, []string{pkg}, Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	fixable := 0
	for _, d := range res.Diagnostics {
		if len(d.SuggestedFixes) > 0 {
			fixable++
		}
	}
	if fixable == 0 {
		t.Fatalf("%s has no fixable finding any more; pick another package: %v", pkg, res.Diagnostics)
	}
	pkgs, err := packages.Load(&packages.Config{Mode: listMode, Dir: dir}, pkg)
	if err != nil {
		t.Fatal(err)
	}
	plan := planFixes(res.Diagnostics, owners(pkgs).whyNot)
	if len(plan.edits) != 0 || len(plan.chosen) != 0 {
		t.Errorf("the plan edits GOROOT: %v", plan.edits)
	}
	skipped := 0
	for _, s := range plan.skipped {
		skipped += s.Fixes
		if !strings.Contains(s.Reason, "in GOROOT, the standard library") {
			t.Errorf("%s: reason %q", s.File, s.Reason)
		}
	}
	if skipped != fixable {
		t.Errorf("%d fixes listed as skipped, want %d: %+v", skipped, fixable, plan.skipped)
	}
}

// TestOwnersWhyNot covers the files --fix refuses besides other modules':
// read-only files and files of no package checked.
func TestOwnersWhyNot(t *testing.T) {
	dir := t.TempDir()
	ro, rw := filepath.Join(dir, "ro.go"), filepath.Join(dir, "rw.go")
	os.WriteFile(ro, []byte("package p\n"), 0o444)
	os.WriteFile(rw, []byte("package p\n"), 0o644)
	o := owners([]*packages.Package{{GoFiles: []string{ro, rw}, Module: &packages.Module{Path: "example.com/p", Main: true}}})
	for file, want := range map[string]string{
		ro:                             "read-only",
		rw:                             "",
		filepath.Join(dir, "other.go"): "not a source file of the packages checked",
	} {
		if got := o.whyNot(file); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", filepath.Base(file), got, want)
		}
	}
}
