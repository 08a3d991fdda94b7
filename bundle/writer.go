package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Writer adds evidence files to a bundle directory. It remembers what it
// creates, so that Abort can take back exactly that.
type Writer struct {
	dir string
	// made lists the directories Create and Writer.Create made, parents
	// first; files the files written, in order.
	made    []string
	files   []string
	written map[string]bool // names in files
	aborted bool
}

// Create makes dir as a new bundle directory. An existing empty directory is
// accepted so that callers may prepare it (for example with restricted
// permissions); a non-empty one is refused because mixing evidence from two
// runs would produce a misleading diagnosis.
func Create(dir string) (*Writer, error) {
	if dir == "" {
		return nil, errors.New("create bundle: empty directory name")
	}
	w := &Writer{dir: dir, written: map[string]bool{}}
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil:
		if len(entries) > 0 {
			return nil, fmt.Errorf("create bundle %s: directory is not empty", dir)
		}
	case errors.Is(err, fs.ErrNotExist):
		if err := w.mkdirAll(dir); err != nil {
			return nil, fmt.Errorf("create bundle %s: %w", dir, unwrapPath(err))
		}
	default:
		return nil, fmt.Errorf("create bundle %s: %w", dir, unwrapPath(err))
	}
	return w, nil
}

// mkdirAll makes dir and its missing parents, and remembers which it made.
func (w *Writer) mkdirAll(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	err := os.MkdirAll(dir, 0o755)
	// Those that exist now were made here, unless another process raced
	// to make one: Abort only removes them empty, so that is harmless.
	for i := len(missing) - 1; i >= 0; i-- {
		if fi, serr := os.Lstat(missing[i]); serr == nil && fi.IsDir() {
			w.made = append(w.made, missing[i])
		}
	}
	return err
}

// Abort removes what the Writer created: the files it wrote and the
// directories it made, the bundle directory included, when they are empty
// once its files are gone. Anything else, such as a file the user put in
// the directory, stays, and so does a directory that holds it. A command
// that fails part-way calls Abort rather than removing the directory,
// which may have been the user's. The Writer cannot be used afterwards;
// calling Abort again does nothing.
func (w *Writer) Abort() error {
	if w.aborted {
		return nil
	}
	w.aborted = true
	var errs []error
	for i := len(w.files) - 1; i >= 0; i-- {
		if err := os.Remove(w.Path(w.files[i])); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	for i := len(w.made) - 1; i >= 0; i-- {
		err := os.Remove(w.made[i])
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !isNotEmpty(err) {
			errs = append(errs, err)
		}
	}
	w.files, w.made = nil, nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("abort bundle %s: %w", w.dir, err)
	}
	return nil
}

// isNotEmpty reports whether err is the failure to remove a directory that
// still holds something.
func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}

// claim records name as written by w, or refuses it when a file of that
// name exists that w did not write: the Writer never replaces what it did
// not create.
func (w *Writer) claim(name string) error {
	if w.aborted {
		return errors.New("bundle aborted")
	}
	if w.written[name] {
		return nil
	}
	if _, err := os.Lstat(w.Path(name)); err == nil {
		return fmt.Errorf("%s exists and was not written by this run; not replacing it", name)
	}
	w.written[name] = true
	w.files = append(w.files, name)
	return nil
}

// Reserve claims the evidence file name for another process to write,
// such as the program gcdoctor runs, and returns its path. Like Create, it
// refuses a name already there that w did not write; Abort removes the
// file if it was made.
func (w *Writer) Reserve(name string) (string, error) {
	if !validName(name) || strings.Contains(name, "/") {
		return "", fmt.Errorf("bundle %s: invalid file name %q", w.dir, name)
	}
	if err := w.claim(name); err != nil {
		return "", fmt.Errorf("bundle %s: %w", w.dir, err)
	}
	return w.Path(name), nil
}

// Dir returns the bundle directory as given to Create.
func (w *Writer) Dir() string { return w.dir }

// Path returns the file system path of the evidence file name, for tools
// that want to write it themselves rather than through Create.
func (w *Writer) Path(name string) string {
	return filepath.Join(w.dir, filepath.FromSlash(name))
}

// Create creates the evidence file name for streaming, or truncates one
// this Writer created before; it refuses to replace a file it did not
// create. Names are slash-separated and must stay inside the bundle, so
// that a bundle written here can always be read back by Open; missing
// parent directories are created.
func (w *Writer) Create(name string) (*os.File, error) {
	if !validName(name) {
		return nil, fmt.Errorf("bundle %s: invalid file name %q", w.dir, name)
	}
	p := w.Path(name)
	if err := w.mkdirAll(filepath.Dir(p)); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", w.dir, err)
	}
	if err := w.claim(name); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", w.dir, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", w.dir, err)
	}
	return f, nil
}

// WriteMeta writes m as meta.json. A zero SchemaVersion is written as the
// current one, and m itself is not modified. The file is replaced
// atomically, so a reader never sees half of it even if WriteMeta is called
// again to add details after more evidence was gathered.
func (w *Writer) WriteMeta(m *Meta) error {
	if m == nil {
		return fmt.Errorf("bundle %s: write %s: nil Meta", w.dir, MetaFile)
	}
	data, err := encodeMeta(m)
	if err != nil {
		return fmt.Errorf("bundle %s: write %s: %w", w.dir, MetaFile, err)
	}
	if err := w.writeAtomic(MetaFile, bytes.NewReader(data)); err != nil {
		return fmt.Errorf("bundle %s: write %s: %w", w.dir, MetaFile, err)
	}
	return nil
}

// WriteRSS writes samples as rss.csv, replacing any previous file
// atomically.
func (w *Writer) WriteRSS(samples []RSSSample) error {
	var buf bytes.Buffer
	encodeRSS(&buf, samples)
	if err := w.writeAtomic(RSSFile, &buf); err != nil {
		return fmt.Errorf("bundle %s: write %s: %w", w.dir, RSSFile, err)
	}
	return nil
}

// WriteHost writes samples as host.csv, replacing any previous file
// atomically.
func (w *Writer) WriteHost(samples []HostSample) error {
	var buf bytes.Buffer
	encodeHost(&buf, samples)
	if err := w.writeAtomic(HostFile, &buf); err != nil {
		return fmt.Errorf("bundle %s: write %s: %w", w.dir, HostFile, err)
	}
	return nil
}

// writeAtomic writes r to name through a temporary file in the same
// directory, which rename then swaps in place.
func (w *Writer) writeAtomic(name string, r io.Reader) error {
	if err := w.claim(name); err != nil {
		return err
	}
	p := w.Path(name)
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = io.Copy(f, r)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// unwrapPath drops the *fs.PathError wrapper whose path the caller already
// names in its own message.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
