package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"sync"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

// The result cache keeps the diagnostics of each package checked without
// errors, keyed by everything they depend on, so that checking an
// unchanged package again costs reading its files rather than parsing,
// type-checking and analyzing them. go vet caches its results the same
// way (in the go command's build cache).
//
// The key covers: the checker program itself (a hash of the running
// executable, so a new gcdoctor or a changed analyzer never reads old
// results), the Go version it was built with (go/types), the analyzers
// run, the package's identity, Go version and type sizes, the name and
// content of each of its compiled files, and the export data of each
// direct import (identified by its name in the build cache, which is the
// hash of its content). Export data of an import summarizes every type
// reachable through it, so changes further down show up there.
//
// GCDOCTOR_LINT_CACHE=off turns the cache off; GCDOCTOR_LINT_CACHE=DIR
// puts it in DIR instead of the user cache directory.

// cacheKey identifies one package's results.
type cacheKey [sha256.Size]byte

// resultCache is a directory of results, one file per key.
type resultCache struct {
	dir    string
	toolID string
}

const (
	cacheVersion = "gcdoctor-lint-cache-2"
	// Entries not used for cacheMaxAge are removed, checked at most once
	// per cacheTrimInterval; an entry's modification time is refreshed on
	// use at most once per cacheTouchInterval.
	cacheMaxAge        = 5 * 24 * time.Hour
	cacheTrimInterval  = 24 * time.Hour
	cacheTouchInterval = time.Hour
)

var (
	toolIDOnce sync.Once
	toolID     string
)

// executableID returns a hash of the running program, or "" if it cannot
// be read.
func executableID() string {
	toolIDOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			return
		}
		f, err := os.Open(exe)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return
		}
		toolID = hex.EncodeToString(h.Sum(nil))
	})
	return toolID
}

// openCache returns the result cache, or nil when it is turned off or
// cannot be used.
func openCache() *resultCache {
	dir := os.Getenv("GCDOCTOR_LINT_CACHE")
	switch dir {
	case "off":
		return nil
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(base, "gcdoctor", "lint")
	}
	id := executableID()
	if id == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	c := &resultCache{dir: dir, toolID: id}
	c.trim()
	return c
}

// buildCacheName matches the file names of the go command's build cache,
// which are the SHA-256 of their content.
var buildCacheName = regexp.MustCompile(`^[0-9a-f]{64}-d$`)

// key computes the key of package p, whose compiled files have contents
// srcs, checked by analyzers.
func (c *resultCache) key(p *packages.Package, srcs [][]byte, analyzers []*analysis.Analyzer) cacheKey {
	h := sha256.New()
	fmt.Fprintf(h, "%s\ntool %s\ngo %s\n", cacheVersion, c.toolID, runtime.Version())
	for _, a := range analyzers {
		fmt.Fprintf(h, "analyzer %s\n", a.Name)
	}
	fmt.Fprintf(h, "package %q %q %q\n", p.ID, p.PkgPath, p.Name)
	if p.Module != nil {
		fmt.Fprintf(h, "module %q go %q\n", p.Module.Path, p.Module.GoVersion)
	}
	fmt.Fprintf(h, "sizes %#v\n", p.TypesSizes)
	for i, name := range p.CompiledGoFiles {
		fmt.Fprintf(h, "file %q %x\n", name, sha256.Sum256(srcs[i]))
	}
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		dep := p.Imports[path]
		fmt.Fprintf(h, "import %q %q %s\n", path, dep.ID, exportID(dep.ExportFile))
	}
	var k cacheKey
	h.Sum(k[:0])
	return k
}

// exportID identifies the content of an export data file: its name when
// it is in the build cache, else a hash of the file.
func exportID(file string) string {
	if file == "" {
		return "none"
	}
	if base := filepath.Base(file); buildCacheName.MatchString(base) {
		return base
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "unreadable " + file
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))
}

func (c *resultCache) file(k cacheKey) string {
	name := hex.EncodeToString(k[:])
	return filepath.Join(c.dir, name[:2], name+".json")
}

// get returns the diagnostics stored under k.
func (c *resultCache) get(k cacheKey) ([]Diagnostic, bool) {
	name := c.file(k)
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, false
	}
	var diags []Diagnostic
	if err := json.Unmarshal(data, &diags); err != nil {
		return nil, false
	}
	if st, err := os.Stat(name); err == nil && time.Since(st.ModTime()) > cacheTouchInterval {
		now := time.Now()
		os.Chtimes(name, now, now)
	}
	return diags, true
}

// put stores diags under k. Failures are ignored: the cache only saves
// time.
func (c *resultCache) put(k cacheKey, diags []Diagnostic) {
	if diags == nil {
		diags = []Diagnostic{}
	}
	data, err := json.Marshal(diags)
	if err != nil {
		return
	}
	name := c.file(k)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return
	}
	// Write then rename, so that a concurrent reader sees all or nothing.
	f, err := os.CreateTemp(filepath.Dir(name), "tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), name) != nil {
		os.Remove(f.Name())
	}
}

// trim removes entries unused for cacheMaxAge, at most once per
// cacheTrimInterval.
func (c *resultCache) trim() {
	stamp := filepath.Join(c.dir, "trim.txt")
	if st, err := os.Stat(stamp); err == nil && time.Since(st.ModTime()) < cacheTrimInterval {
		return
	}
	os.WriteFile(stamp, []byte(time.Now().Format(time.RFC3339)+"\n"), 0o644)
	subdirs, _ := os.ReadDir(c.dir)
	for _, sd := range subdirs {
		if !sd.IsDir() {
			continue
		}
		dir := filepath.Join(c.dir, sd.Name())
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > cacheMaxAge {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
}
