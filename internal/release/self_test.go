package release

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSelfCommand checks how the commands gcdoctor prints name gcdoctor:
// by name when the PATH finds this executable, by path when it does not,
// and for a go run binary, which is removed when it exits, by the go run
// command that builds it again from where the shell is.
func TestCommand(t *testing.T) {
	root := t.TempDir()
	clone := filepath.Join(root, "clone")
	other := filepath.Join(root, "other")
	for _, d := range []string{filepath.Join(clone, "internal", "cli"), filepath.Join(other, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, data string) {
		if err := os.WriteFile(path, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(clone, "go.mod"), "module github.com/gcdoctor/gcdoctor\n\ngo 1.26\n")
	write(filepath.Join(other, "go.mod"), "module example.com/other\n")
	installed := filepath.Join(root, "bin", "gcdoctor")
	if err := os.MkdirAll(filepath.Dir(installed), 0o755); err != nil {
		t.Fatal(err)
	}
	write(installed, "")
	built := filepath.Join(clone, "gcdoctor")
	write(built, "")
	goRun := filepath.Join(root, "go-build1234", "b001", "exe", "gcdoctor")
	cache := filepath.Join(root, "cache", "go-build")
	cached := filepath.Join(cache, "60", "6011cfaad2-d", "gcdoctor")
	const pkg, mod = "github.com/gcdoctor/gcdoctor/cmd/gcdoctor", "github.com/gcdoctor/gcdoctor"
	tests := []struct {
		name string
		p    Process
		want string
	}{
		{"on the PATH", Process{exe: installed, cwd: other, pathTool: installed}, "gcdoctor"},
		{"another gcdoctor on the PATH", Process{exe: built, cwd: other, pathTool: installed}, built},
		{"built in the working directory", Process{exe: built, cwd: clone}, "./gcdoctor"},
		{"go run at the clone's root", Process{exe: goRun, cwd: clone, pkg: pkg, module: mod, version: "(devel)"}, "go run ./cmd/gcdoctor"},
		{"go run deeper in the clone", Process{exe: goRun, cwd: filepath.Join(clone, "internal", "cli"), pkg: pkg, module: mod, version: "(devel)"}, "go run " + pkg},
		{"go run of a version", Process{exe: goRun, cwd: filepath.Join(other, "sub"), pkg: pkg, module: mod, version: "v0.4.1"}, "go run " + pkg + "@v0.4.1"},
		{"go run outside any module", Process{exe: goRun, cwd: root, pkg: pkg, module: mod, version: "(devel)"}, "go run " + pkg + "@latest"},
		{"go run from the build cache", Process{exe: cached, gocache: cache, cwd: clone, pkg: pkg, module: mod, version: "(devel)"}, "go run ./cmd/gcdoctor"},
		{"built into the cache's parent", Process{exe: filepath.Join(root, "cache", "gcdoctor"), gocache: cache, cwd: other}, filepath.Join(root, "cache", "gcdoctor")},
		{"unknown executable", Process{}, "gcdoctor"},
		{"a path to quote", Process{exe: "/opt/my tools/gcdoctor", cwd: other}, "'/opt/my tools/gcdoctor'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Command(tt.p); got != tt.want {
				t.Errorf("Command(%+v) = %q, want %q", tt.p, got, tt.want)
			}
		})
	}
}
