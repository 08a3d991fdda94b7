package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

// Process is what Command learns from the running process; tests fill it
// by hand.
type Process struct {
	exe      string // the running executable, symbolic links resolved; "" unknown
	gocache  string // the go command's build cache, where go run keeps its binaries
	cwd      string // the working directory; "" unknown
	pathTool string // what "gcdoctor" on the PATH resolves to, "" none
	pkg      string // the main package's import path, from the build info
	module   string // its module path
	version  string // its module version: "(devel)" for a build from a clone
}

// Current describes the running process.
func Current() Process {
	var p Process
	if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		p.exe = exe
	}
	p.cwd, _ = os.Getwd()
	p.gocache = os.Getenv("GOCACHE")
	if p.gocache == "" {
		if d, err := os.UserCacheDir(); err == nil {
			p.gocache = filepath.Join(d, "go-build")
		}
	}
	if lp, err := exec.LookPath("gcdoctor"); err == nil {
		if r, err := filepath.EvalSymlinks(lp); err == nil {
			lp = r
		}
		if abs, err := filepath.Abs(lp); err == nil {
			p.pathTool = abs
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		p.pkg, p.module, p.version = bi.Path, bi.Main.Path, bi.Main.Version
	}
	return p
}

// Command returns how a shell in the current directory starts this
// gcdoctor, for the commands gcdoctor prints: "gcdoctor" when that is what
// the PATH finds, the executable's path otherwise. A binary of go run lives
// in a temporary directory that is gone once it exits, so it is named by
// the go run command that builds it again: "go run ./cmd/gcdoctor" from the
// root of a clone, the package's import path elsewhere in it, and the
// module version (or @latest) outside it.
func Command(p Process) string {
	if p.exe == "" {
		return "gcdoctor"
	}
	if p.pathTool != "" && sameFile(p.pathTool, p.exe) {
		return "gcdoctor"
	}
	if !p.goRunBinary() {
		if p.cwd != "" {
			if rel, err := filepath.Rel(p.cwd, p.exe); err == nil && filepath.IsLocal(rel) {
				return diagnose.ShellQuote("./" + filepath.ToSlash(rel))
			}
		}
		return diagnose.ShellQuote(p.exe)
	}
	if p.pkg == "" || p.module == "" {
		return "gcdoctor"
	}
	if root := moduleRoot(p.cwd, p.module); root != "" {
		if root == p.cwd {
			return "go run ." + strings.TrimPrefix(p.pkg, p.module)
		}
		return "go run " + p.pkg
	}
	v := "latest"
	if semver.IsValid(p.version) {
		v = p.version
	}
	return "go run " + p.pkg + "@" + v
}

// goRunBinary reports whether the executable was built by go run, which
// keeps it in the build cache, or links it into $GOTMPDIR/go-build*/…/exe/
// and removes the directory when it exits.
func (p *Process) goRunBinary() bool {
	if p.gocache != "" {
		if rel, err := filepath.Rel(p.gocache, p.exe); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	dir := filepath.Dir(p.exe)
	return filepath.Base(dir) == "exe" && strings.Contains(filepath.ToSlash(dir), "/go-build")
}

// moduleRoot returns the directory of the go.mod enclosing dir when it
// declares module, else "".
func moduleRoot(dir, module string) string {
	for d := dir; d != ""; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			if modfile.ModulePath(data) == module {
				return d
			}
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return ""
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
