package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Writer adds evidence files to a bundle directory.
type Writer struct {
	dir string
}

// Create makes dir as a new bundle directory. An existing empty directory is
// accepted so that callers may prepare it (for example with restricted
// permissions); a non-empty one is refused because mixing evidence from two
// runs would produce a misleading diagnosis.
func Create(dir string) (*Writer, error) {
	if dir == "" {
		return nil, errors.New("create bundle: empty directory name")
	}
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil:
		if len(entries) > 0 {
			return nil, fmt.Errorf("create bundle %s: directory is not empty", dir)
		}
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create bundle %s: %w", dir, unwrapPath(err))
		}
	default:
		return nil, fmt.Errorf("create bundle %s: %w", dir, unwrapPath(err))
	}
	return &Writer{dir: dir}, nil
}

// Dir returns the bundle directory as given to Create.
func (w *Writer) Dir() string { return w.dir }

// Path returns the file system path of the evidence file name, for tools
// that want to write it themselves rather than through Create.
func (w *Writer) Path(name string) string {
	return filepath.Join(w.dir, filepath.FromSlash(name))
}

// Create creates or truncates the evidence file name for streaming. Names
// are slash-separated and must stay inside the bundle, so that a bundle
// written here can always be read back by Open; missing parent directories
// are created.
func (w *Writer) Create(name string) (*os.File, error) {
	if !validName(name) {
		return nil, fmt.Errorf("bundle %s: invalid file name %q", w.dir, name)
	}
	p := w.Path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
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

// writeAtomic writes r to name through a temporary file in the same
// directory, which rename then swaps in place.
func (w *Writer) writeAtomic(name string, r io.Reader) error {
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
