package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lintModule copies lint's example module (../../lint/testdata/mod) to a
// temporary directory, with a clean package added, and returns it.
func lintModule(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "lint", "testdata", "mod")
	dst := t.TempDir()
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
	clean := "package clean\n\n// Names preallocates.\nfunc Names(users []string) []string {\n\tnames := make([]string, 0, len(users))\n\tfor _, u := range users {\n\t\tnames = append(names, u)\n\t}\n\treturn names\n}\n"
	if err := os.MkdirAll(filepath.Join(dst, "clean"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "clean", "clean.go"), []byte(clean), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestLintExit checks lint's exit status: 1 when findings are left, as go
// vet and staticcheck do; 0 when none are, or --fix fixed them all, or
// they are all below --fail-on; 3 when --fail-on is crossed; 2 for bad
// usage.
func TestLintExit(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	t.Setenv("GCDOCTOR_LINT_CACHE", "off")
	dir := lintModule(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"findings", []string{"./app"}, ExitError, "gcdoctor: 6 findings"},
		{"clean", []string{"./clean"}, ExitOK, ""},
		// One of app's findings is information only (time.After under Go 1.23).
		{"fail-on crossed", []string{"--fail-on", "warning", "./app"}, ExitFailOn, "5 findings at or above warning"},
		{"fail-on info", []string{"--fail-on", "info", "./app"}, ExitFailOn, "6 findings at or above info"},
		{"fail-on not crossed", []string{"--fail-on", "critical", "./app"}, ExitOK, ""},
		{"broken package", []string{"./broken"}, ExitError, "do not compile"},
		{"bad format", []string{"--format", "markdown", "./app"}, ExitUsage, "--format must be text, json or sarif"},
		{"json and format", []string{"--json", "--format", "sarif", "./app"}, ExitUsage, "--json is --format json"},
		{"unknown flag", []string{"-bogus", "./app"}, ExitUsage, "unknown"},
		{"fix all", []string{"--fix", "./app"}, ExitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := run(t, "", nil, append([]string{"lint", "--dir", dir}, tt.args...)...)
			if code != tt.code || tt.stderr != "" && !strings.Contains(stderr, tt.stderr) || tt.stderr == "" && stderr != "" {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, tt.code, tt.stderr)
			}
		})
	}
}

// TestLintFormats checks --format, -o, the one-dash -json and the older
// --sarif FILE.
func TestLintFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	t.Setenv("GCDOCTOR_LINT_CACHE", "off")
	dir := lintModule(t)
	lint := func(args ...string) (string, string) {
		t.Helper()
		stdout, stderr, code := run(t, "", nil, append([]string{"lint", "--dir", dir}, args...)...)
		if code != ExitError {
			t.Fatalf("%v: exit %d, want 1 for the findings: %s", args, code, stderr)
		}
		return stdout, stderr
	}

	long, _ := lint("--json", "./app")
	short, _ := lint("-json", "./app")
	if long != short || !json.Valid([]byte(short)) || !strings.Contains(short, `"rule": "appendprealloc"`) {
		t.Errorf("-json differs from --json or is not the JSON result:\n%s\n%s", short, long)
	}
	if format, _ := lint("--format", "json", "./app"); format != long {
		t.Errorf("--format json differs from --json")
	}

	out := filepath.Join(t.TempDir(), "lint.sarif")
	if err := os.WriteFile(out, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := lint("--format", "sarif", "-o", out, "./app")
	data, err := os.ReadFile(out)
	if err != nil || stdout != "" || !strings.Contains(stderr, "sarif written to "+out) ||
		!strings.Contains(string(data), `"version": "2.1.0"`) || !strings.Contains(string(data), `"ruleId": "appendprealloc"`) {
		t.Errorf("-o: stdout %q, stderr %q, file %.200s (%v)", stdout, stderr, data, err)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("-o changed the file's mode: %v %v", st.Mode(), err)
	}
	if sarif, _ := lint("-format=sarif", "./app"); sarif != string(data) {
		t.Errorf("-format=sarif on standard output differs from -o FILE")
	}

	// The older spelling still writes SARIF beside the printed result.
	alias := filepath.Join(t.TempDir(), "alias.sarif")
	stdout, stderr = lint("--json", "--sarif", alias, "./app")
	aliasData, err := os.ReadFile(alias)
	if err != nil || string(aliasData) != string(data) || stdout != long || !strings.Contains(stderr, "--sarif FILE is deprecated") {
		t.Errorf("--sarif: stdout %.80q, stderr %q, file %.80q (%v)", stdout, stderr, aliasData, err)
	}
	if help, _, code := run(t, "", nil, "lint", "-h"); code != ExitOK || strings.Contains(help, "--sarif") || !strings.Contains(help, "--format") {
		t.Errorf("lint -h: exit %d, shows --sarif or lacks --format:\n%s", code, help)
	}
}

// TestLintSingleDashLong checks the rewriting of one-dash long flags.
