package lint_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/lint"
)

func TestAnalyzers(t *testing.T) {
	ident := regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	seen := map[string]bool{}
	for _, a := range lint.Analyzers() {
		if !ident.MatchString(a.Name) || seen[a.Name] {
			t.Errorf("bad or duplicate rule ID %q", a.Name)
		}
		seen[a.Name] = true
		if !strings.HasPrefix(a.Doc, a.Name+": ") {
			t.Errorf("%s: doc must start with %q", a.Name, a.Name+": ")
		}
		for _, section := range []string{"## Why it costs the GC", "## What is flagged", "## Example", "## Fix", "## Go versions"} {
			if !strings.Contains(a.Doc, section) {
				t.Errorf("%s: doc lacks section %q", a.Name, section)
			}
		}
		if want := "https://github.com/gcdoctor/gcdoctor/blob/main/docs/rules.md#" + a.Name; a.URL != want {
			t.Errorf("%s: URL = %q, want %q", a.Name, a.URL, want)
		}
		if lint.Title(a) == "" || lint.Lookup(a.Name) != a {
			t.Errorf("%s: no title or not found by Lookup", a.Name)
		}
	}
	if len(seen) != 12 {
		t.Errorf("%d analyzers, want 12", len(seen))
	}
}

// copyModule copies testdata/mod to a temporary directory.
func copyModule(t *testing.T) string {
	t.Helper()
	return copyTestdata(t, "mod")
}

// copyTestdata copies testdata/name to a temporary directory.
func copyTestdata(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", name)
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func rules(res *lint.Result, file string) []string {
	var out []string
	for _, d := range res.Diagnostics {
		if d.File == file {
			out = append(out, d.Rule)
		}
	}
	return out
}

func TestRun(t *testing.T) {
	dir := copyModule(t)
	res, err := lint.Run(dir, nil, lint.Options{Env: append(os.Environ(), "CGO_ENABLED=1")})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rules(res, filepath.Join("app", "app.go")), " ")
	want := "appendprealloc mapprealloc stringconcatloop sprintfconv regexpcompile timeafterloop"
	if got != want {
		t.Errorf("app.go rules = %q, want %q", got, want)
	}
	// The broken package is reported, and still checked.
	if len(res.Broken) != 1 || res.Broken[0].Package != "example.com/mod/broken" || !strings.Contains(strings.Join(res.Broken[0].Errors, "\n"), "undefined") {
		t.Errorf("broken = %+v", res.Broken)
	}
	if got := rules(res, filepath.Join("broken", "broken.go")); len(got) != 1 || got[0] != "forcedgc" {
		t.Errorf("broken.go rules = %v, want [forcedgc]", got)
	}
	// Generated files are skipped, the other file of the package is not.
	if got := rules(res, filepath.Join("gen", "gen.go")); len(got) != 0 {
		t.Errorf("generated file checked: %v", got)
	}
	if got := rules(res, filepath.Join("gen", "real.go")); len(got) != 1 {
		t.Errorf("gen/real.go rules = %v", got)
	}
	if _, err := exec.LookPath("gcc"); err == nil {
		if got := rules(res, filepath.Join("cgo", "cgo.go")); len(got) != 1 {
			t.Errorf("cgo.go rules = %v (broken: %v)", got, res.Broken)
		}
	}
	if len(res.AnalysisErrors) > 0 {
		t.Errorf("analysis errors: %v", res.AnalysisErrors)
	}
	for i := 1; i < len(res.Diagnostics); i++ {
		a, b := res.Diagnostics[i-1], res.Diagnostics[i]
		if a.File > b.File || (a.File == b.File && a.Line > b.Line) {
			t.Errorf("not sorted: %v before %v", a, b)
		}
	}
	data, err := json.Marshal(res.Diagnostics[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"rule":`, `"file":`, `"line":`, `"column":`, `"message":`} {
		if !bytes.Contains(data, []byte(key)) {
			t.Errorf("JSON %s lacks %s", data, key)
		}
	}
}

// TestFix applies every fix to the example module and checks that the
// result builds, passes go vet and has no fixable findings left.
func TestFix(t *testing.T) {
	dir := copyModule(t)
	for _, d := range []string{"broken", "cgo"} {
		os.RemoveAll(filepath.Join(dir, d))
	}
	res, err := lint.Run(dir, nil, lint.Options{Fix: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Fixed) != 1 || res.Fixed[0] != filepath.Join("app", "app.go") {
		t.Errorf("fixed = %v", res.Fixed)
	}
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			src, _ := os.ReadFile(filepath.Join(dir, "app", "app.go"))
			t.Fatalf("go %s after fixes: %v\n%s\n%s", args[0], err, out, src)
		}
	}
	again, err := lint.Run(dir, nil, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range again.Diagnostics {
		if d.File == filepath.Join("app", "app.go") {
			t.Errorf("left after fixing: %v", d)
		}
	}
}

func TestRunBadInput(t *testing.T) {
	// A directory outside any module.
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "x.go"), []byte("package x\n"), 0o644)
	res, err := lint.Run(empty, nil, lint.Options{Env: append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on")})
	if err == nil && (res == nil || len(res.Broken) == 0) {
		t.Errorf("no error outside a module: %+v", res)
	}
	// A missing directory.
	if _, err := lint.Run(filepath.Join(empty, "missing"), nil, lint.Options{}); err == nil {
		t.Error("no error for a missing directory")
	}
	// A pattern matching nothing.
	dir := copyModule(t)
	res, err = lint.Run(dir, []string{"./nosuchpkg"}, lint.Options{})
	if err == nil && (res == nil || len(res.Broken) == 0) {
		t.Errorf("no error for a missing package: %+v", res)
	}
	// A file that does not parse.
	os.WriteFile(filepath.Join(dir, "app", "bad.go"), []byte("package app\nfunc {"), 0o644)
	res, err = lint.Run(dir, []string{"./app"}, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Broken) == 0 {
		t.Error("syntax error not reported")
	}
}

func TestSARIF(t *testing.T) {
	res := &lint.Result{Diagnostics: []lint.Diagnostic{{Rule: "forcedgc", File: "a/b.go", Line: 3, Column: 2, Message: "m", Severity: "warning"}}}
	var buf bytes.Buffer
	if err := lint.WriteSARIF(&buf, res); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string }
				}
			}
			Results []struct {
				RuleID    string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Tool.Driver.Rules) != 12 {
		t.Fatalf("bad SARIF: %s", buf.Bytes())
	}
	r := log.Runs[0].Results[0]
	if r.RuleID != "forcedgc" || r.Message.Text != "m" || r.Locations[0].PhysicalLocation.ArtifactLocation.URI != "a/b.go" || r.Locations[0].PhysicalLocation.Region.StartLine != 3 {
		t.Errorf("bad result: %+v", r)
	}
}

// TestVetTool builds cmd/gcdoctor-vet and runs it under go vet.
func TestVetTool(t *testing.T) {
	if os.Getenv("GCDOCTOR_LONG") == "" {
		t.Skip("builds gcdoctor-vet and runs go vet with it: a long test; set GCDOCTOR_LONG=1 to run it")
	}
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "gcdoctor-vet")
	build := exec.Command("go", "build", "-o", bin, "github.com/gcdoctor/gcdoctor/cmd/gcdoctor-vet")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := copyModule(t)
	vet := exec.Command("go", "vet", "-vettool="+bin, "./app", "./gen")
	vet.Dir = dir
	out, err := vet.CombinedOutput()
	if err == nil {
		t.Fatalf("go vet found nothing:\n%s", out)
	}
	for _, want := range []string{"names grows by one append", "time.After in a loop", "gen/real.go"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("go vet output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "gen/gen.go") {
		t.Errorf("go vet reported a generated file:\n%s", out)
	}
}

// TestMain keeps the result cache of the tests out of the user's cache,
// unless GCDOCTOR_LINT_CACHE says where it goes (or "off").
func TestMain(m *testing.M) {
	if os.Getenv("GCDOCTOR_LINT_CACHE") != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "gcdoctor-lint-cache")
	if err != nil {
		panic(err)
	}
	os.Setenv("GCDOCTOR_LINT_CACHE", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestCache checks that cached results are those of a fresh run and that
// a changed file is checked again.
func TestCache(t *testing.T) {
	t.Setenv("GCDOCTOR_LINT_CACHE", t.TempDir())
	dir := copyModule(t)
	os.RemoveAll(filepath.Join(dir, "cgo"))
	fresh, err := lint.Run(dir, nil, lint.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the first run fills the cache, the second reads it
		cached, err := lint.Run(dir, nil, lint.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustJSON(t, fresh), mustJSON(t, cached); a != b {
			t.Fatalf("cached result differs:\n%s\n%s", a, b)
		}
	}
	entries, _ := filepath.Glob(filepath.Join(os.Getenv("GCDOCTOR_LINT_CACHE"), "*", "*.json"))
	if len(entries) == 0 {
		t.Error("nothing cached")
	}
	// A new finding in a changed file.
	f, err := os.OpenFile(filepath.Join(dir, "gen", "real.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nfunc Again(n int) {\n\tfor range n {\n\t\truntime.GC()\n\t}\n}\n")
	f.Close()
	again, err := lint.Run(dir, nil, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rules(again, filepath.Join("gen", "real.go"))), len(rules(fresh, filepath.Join("gen", "real.go")))+1; got != want {
		t.Errorf("gen/real.go has %d findings after the change, want %d", got, want)
	}
}

// TestBrokenDependency checks packages that import a package that does not
// compile (which has no export data): they are checked from source.
func TestBrokenDependency(t *testing.T) {
	dir := copyModule(t)
	os.RemoveAll(filepath.Join(dir, "cgo"))
	os.MkdirAll(filepath.Join(dir, "uses"), 0o755)
	src := `package uses

import (
	"runtime"

	"example.com/mod/broken"
)

func F(n int) int {
	for i := 0; i < n; i++ {
		runtime.GC()
	}
	return broken.Bad()
}
`
	if err := os.WriteFile(filepath.Join(dir, "uses", "uses.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := lint.Run(dir, nil, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rules(res, filepath.Join("uses", "uses.go")); len(got) != 1 || got[0] != "forcedgc" {
		t.Errorf("uses.go rules = %v, want [forcedgc]", got)
	}
	if got := rules(res, filepath.Join("app", "app.go")); len(got) != 6 {
		t.Errorf("app.go rules = %v", got)
	}
	if len(res.Broken) == 0 || res.Broken[0].Package != "example.com/mod/broken" {
		t.Errorf("broken = %+v", res.Broken)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestFailure(t *testing.T) {
	warn := lint.Diagnostic{Rule: "regexpcompile"}
	info := lint.Diagnostic{Rule: "mapprealloc", Severity: "info"}
	fixed := lint.Diagnostic{Rule: "sprintfconv", Fixed: true}
	broken := []lint.PackageError{{}}
	for _, tt := range []struct {
		name      string
		res       lint.Result
		failOn    string
		threshold bool
		err       string
	}{
		{"clean", lint.Result{}, "", false, ""},
		{"all fixed", lint.Result{Diagnostics: []lint.Diagnostic{fixed}}, "", false, ""},
		{"findings", lint.Result{Diagnostics: []lint.Diagnostic{warn, info, fixed}}, "", false, "2 findings"},
		{"one finding", lint.Result{Diagnostics: []lint.Diagnostic{info}}, "", false, "1 finding"},
		{"over the threshold", lint.Result{Diagnostics: []lint.Diagnostic{warn, info}, Broken: broken}, "warning", true, "1 finding at or above warning"},
		{"below the threshold", lint.Result{Diagnostics: []lint.Diagnostic{info}}, "warning", false, ""},
		{"broken", lint.Result{Diagnostics: []lint.Diagnostic{info}, Broken: broken}, "warning", false, "1 packages do not compile (checked as far as possible)"},
		{"broken before findings", lint.Result{Diagnostics: []lint.Diagnostic{warn}, Broken: broken}, "", false, "1 packages do not compile (checked as far as possible)"},
	} {
		threshold, err := tt.res.Failure(tt.failOn)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if threshold != tt.threshold || got != tt.err {
			t.Errorf("%s: Failure(%q) = %v, %q; want %v, %q", tt.name, tt.failOn, threshold, got, tt.threshold, tt.err)
		}
	}
}
