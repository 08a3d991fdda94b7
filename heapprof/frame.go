package heapprof

import (
	"fmt"
	"strings"
)

// Frame is one function activation on an allocation stack. Inlined calls
// get a Frame each, so a stack is the logical call chain as written in the
// source.
type Frame struct {
	Function string // fully qualified, as in "net/http.(*conn).serve"; empty when unsymbolized
	File     string // source file as recorded in the binary (usually absolute)
	Line     int    // 1-based line of the call or allocation; 0 when unknown
	Address  uint64 // program counter, when the profile records one
}

// String returns "function file:line", or the address for a frame without
// symbols.
func (f Frame) String() string {
	if f.Function == "" {
		return fmt.Sprintf("%#x", f.Address)
	}
	if f.File == "" {
		return f.Function
	}
	return fmt.Sprintf("%s %s:%d", f.Function, f.File, f.Line)
}

// PackagePath returns the import path of the package that defines the
// function named fn, such as "net/http" for "net/http.(*conn).serve" or
// "github.com/a/b" for "github.com/a/b.F[...]".
func PackagePath(fn string) string {
	// Type arguments may contain dots and slashes of their own.
	if i := strings.IndexByte(fn, '['); i >= 0 {
		fn = fn[:i]
	}
	slash := strings.LastIndexByte(fn, '/')
	if i := strings.IndexByte(fn[slash+1:], '.'); i >= 0 {
		return fn[:slash+1+i]
	}
	return fn
}

// IsStd reports whether the function named fn belongs to the Go standard
// library or the runtime. A standard package's path has no dot in its first
// element ("io", "net/http", "runtime", "internal/abi"), the packages the
// standard library vendors live under "vendor/", and "main" is the user's.
func IsStd(fn string) bool {
	if fn == "" {
		return false
	}
	pkg := PackagePath(fn)
	if pkg == "main" {
		return false
	}
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".")
}

// agentPackage is the package path of gcdoctor's agent.
const agentPackage = "github.com/gcdoctor/gcdoctor/agent"

// IsDependency reports whether fn belongs to code the user imports rather
// than writes: the standard library, the runtime, vendored packages, the
// golang.org/x/ modules, gcdoctor's agent (what it allocates to serve or
// write the evidence is not the program's doing), or a package under one
// of the given module paths.
func IsDependency(fn string, modules ...string) bool {
	if IsStd(fn) {
		return true
	}
	pkg := strings.TrimSuffix(PackagePath(fn), "_test")
	if pkg == agentPackage || strings.HasPrefix(pkg, "golang.org/x/") || strings.HasPrefix(pkg, "vendor/") || strings.Contains(pkg, "/vendor/") {
		return true
	}
	for _, m := range modules {
		if hasPathPrefix(pkg, m) {
			return true
		}
	}
	return false
}

// UserModules returns a predicate that accepts the functions of packages
// under any of the given module (or package) paths. A package's external
// test package (path_test) counts as the package.
func UserModules(paths ...string) func(fn string) bool {
	return func(fn string) bool {
		if fn == "" {
			return false
		}
		pkg := strings.TrimSuffix(PackagePath(fn), "_test")
		for _, p := range paths {
			if hasPathPrefix(pkg, p) {
				return true
			}
		}
		return false
	}
}

// NotDependencies returns a predicate that accepts every symbolized
// function outside the standard library, the runtime, vendored code,
// golang.org/x/ and the listed dependency modules.
func NotDependencies(modules ...string) func(fn string) bool {
	return func(fn string) bool {
		return fn != "" && !IsDependency(fn, modules...)
	}
}

// DefaultUser is the predicate [SiteOptions] uses when none is given: every
// symbolized function outside the standard library, the runtime, vendored
// code and golang.org/x/.
func DefaultUser(fn string) bool { return fn != "" && !IsDependency(fn) }

// hasPathPrefix reports whether path is prefix or lies below it.
func hasPathPrefix(path, prefix string) bool {
	prefix = strings.TrimSuffix(prefix, "/")
	return path == prefix || strings.HasPrefix(path, prefix) && path[len(prefix)] == '/'
}
