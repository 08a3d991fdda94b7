package bundle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Bundle is an evidence bundle opened for reading.
type Bundle struct {
	// root confines every read to the bundle, so that a symbolic link
	// placed in a bundle directory cannot make the analysis read, and
	// perhaps quote in a report, files from elsewhere.
	root  *os.Root
	names []string
	set   map[string]bool
	meta  *Meta
	// tmp is the directory an archive was unpacked into; Close removes it.
	tmp string
}

// Open opens the bundle at path, which is either a directory or a .tar.gz
// or .tgz archive. An archive is unpacked into a temporary directory that
// Close removes, so Close must be called. A missing meta.json is tolerated,
// since evidence gathered by hand is still worth analysing, but a malformed
// one is an error rather than being silently ignored.
func Open(path string) (*Bundle, error) {
	return OpenContext(context.Background(), path)
}

// OpenContext is Open that stops unpacking an archive when ctx is done,
// as when the user presses Ctrl-C: the error then wraps ctx.Err(), and the
// temporary directory is removed, as on every error. A bundle returned
// still needs Close to remove its directory, also after ctx is done.
func OpenContext(ctx context.Context, path string) (*Bundle, error) {
	b, err := open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open bundle %s: %w", path, err)
	}
	return b, nil
}

func open(ctx context.Context, p string) (*Bundle, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, unwrapPath(err)
	}
	var b *Bundle
	switch {
	case fi.IsDir():
		b, err = openDir(p)
	case IsArchiveName(p):
		b, err = openArchive(ctx, p)
	default:
		return nil, errors.New("not a directory or a .tar.gz or .tgz archive")
	}
	if err != nil {
		return nil, err
	}
	if err := b.loadMeta(); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// IsArchiveName reports whether name has an extension Open unpacks.
func IsArchiveName(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasSuffix(lower, ".tar.gz") || strings.HasSuffix(lower, ".tgz")
}

// openDir indexes the regular files below dir. Symbolic links are left out
// of the index because os.Root would refuse to follow those that leave the
// bundle anyway, and listing files that cannot be opened helps nobody.
func openDir(dir string) (*Bundle, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, unwrapPath(err)
	}
	var names []string
	err = fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			names = append(names, name)
		}
		return nil
	})
	if err != nil {
		root.Close()
		return nil, err
	}
	return newBundle(root, names, ""), nil
}

func newBundle(root *os.Root, names []string, tmp string) *Bundle {
	slices.Sort(names)
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return &Bundle{root: root, names: names, set: set, tmp: tmp}
}

// loadMeta reads meta.json if the bundle has one.
func (b *Bundle) loadMeta() error {
	if !b.set[MetaFile] {
		return nil
	}
	f, err := b.root.Open(MetaFile)
	if err != nil {
		return fmt.Errorf("%s: %w", MetaFile, unwrapPath(err))
	}
	defer f.Close()
	// A meta.json is a few kilobytes; the limit keeps a hostile one from
	// exhausting memory.
	const maxMeta = 16 << 20
	data, err := io.ReadAll(io.LimitReader(f, maxMeta+1))
	if err != nil {
		return fmt.Errorf("%s: %w", MetaFile, unwrapPath(err))
	}
	if len(data) > maxMeta {
		return fmt.Errorf("%s: larger than %d bytes", MetaFile, maxMeta)
	}
	m, err := decodeMeta(data)
	if err != nil {
		return err
	}
	b.meta = m
	return nil
}

// Meta returns the contents of meta.json, or nil when the bundle has none.
// The result is shared; callers must not modify it.
func (b *Bundle) Meta() *Meta { return b.meta }

// Names returns the slash-separated names of the files in the bundle, in
// lexical order.
func (b *Bundle) Names() []string { return slices.Clone(b.names) }

// Has reports whether the bundle holds a file called name.
func (b *Bundle) Has(name string) bool { return b.set[name] }

// Open opens the file called name for reading. The error wraps
// fs.ErrNotExist when the bundle has no such file, so that callers can treat
// missing optional evidence separately from damaged evidence.
func (b *Bundle) Open(name string) (io.ReadCloser, error) {
	if b.root == nil {
		return nil, fmt.Errorf("bundle: open %s: %w", name, fs.ErrClosed)
	}
	if !b.set[name] {
		return nil, fmt.Errorf("bundle: open %s: %w", name, fs.ErrNotExist)
	}
	f, err := b.root.Open(filepath.FromSlash(name))
	if err != nil {
		return nil, fmt.Errorf("bundle: open %s: %w", name, unwrapPath(err))
	}
	return f, nil
}

// RSS returns the samples in rss.csv. The error wraps fs.ErrNotExist when
// the bundle has no rss.csv.
func (b *Bundle) RSS() ([]RSSSample, error) {
	rc, err := b.Open(RSSFile)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	samples, err := decodeRSS(rc)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	return samples, nil
}

// Host returns the samples in host.csv. The error wraps fs.ErrNotExist
// when the bundle has no host.csv.
func (b *Bundle) Host() ([]HostSample, error) {
	rc, err := b.Open(HostFile)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	samples, err := decodeHost(rc)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	return samples, nil
}

// Close releases the bundle and removes the directory an archive was
// unpacked into. Calling it more than once is harmless.
func (b *Bundle) Close() error {
	var err error
	if b.root != nil {
		err = b.root.Close()
		b.root = nil
	}
	if b.tmp != "" {
		if rerr := os.RemoveAll(b.tmp); err == nil {
			err = rerr
		}
		b.tmp = ""
	}
	return err
}

// validName reports whether name is a slash-separated path that stays
// inside the bundle.
func validName(name string) bool {
	return name != "." && fs.ValidPath(name)
}

// KnownFiles are the files a bundle may hold that gcdoctor reads, in the
// order a diagnosis reads them.
var KnownFiles = append([]string{MetaFile, GCTraceFile, RSSFile, HostFile, AllocsFile, HeapFile, GoroutineFile, TraceFile,
	GoroutineLeakFile, LiveTimesFile}, LiveFiles...)

// IsBundle reports whether path names an evidence bundle: a .tar.gz or
// .tgz archive, or a directory that holds at least one of KnownFiles. A
// directory of other files (benchmark results, say) is not a bundle.
func IsBundle(path string) bool {
	if IsArchiveName(path) {
		return true
	}
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	for _, f := range KnownFiles {
		if st, err := os.Stat(filepath.Join(path, f)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}
