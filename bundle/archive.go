package bundle

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// MaxArchiveSize is the largest total size, in bytes, of the files Open
// unpacks from an archive. Real bundles are far smaller; the cap stops a
// compressed archive from filling the disk. It is checked against the sizes
// the archive declares, before any data is written.
const MaxArchiveSize = 2 << 30

// archiveLimit is MaxArchiveSize, lowered by tests that must not write
// gigabytes.
var archiveLimit int64 = MaxArchiveSize

// maxArchiveEntries bounds the number of entries in an archive, since each
// costs an inode even when empty.
const maxArchiveEntries = 10000

// openArchive unpacks a gzip-compressed tar archive into a new temporary
// directory. Every entry is checked before anything is written for it.
// The directory is removed on every error, cancellation included.
func openArchive(ctx context.Context, p string) (b *Bundle, err error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, unwrapPath(err)
	}
	defer f.Close()
	// A read blocked on a pipe or a slow disk does not see ctx; closing
	// the file ends it.
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	tmp, err := os.MkdirTemp("", "gcdoctor-bundle-*")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			if rerr := os.RemoveAll(tmp); rerr != nil {
				err = fmt.Errorf("%w (and %s is left behind: %v)", err, tmp, rerr)
			}
		}
	}()
	names, err := unpack(ctx, f, tmp)
	if cerr := ctx.Err(); cerr != nil {
		// Whatever the read failed with, it was because of ctx.
		return nil, fmt.Errorf("unpacking stopped: %w", cerr)
	}
	if err != nil {
		return nil, err
	}
	// Archives made with "tar czf x.tgz dir" put everything under one
	// directory; the bundle is that directory.
	dir := tmp
	if top, ok := commonTop(names); ok {
		dir = filepath.Join(tmp, top)
		for i, n := range names {
			names[i] = strings.TrimPrefix(n, top+"/")
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, unwrapPath(err)
	}
	return newBundle(root, names, tmp), nil
}

// unpack writes the regular files of the tar.gz stream r below dir and
// returns their names. It checks ctx before each entry and each chunk.
func unpack(ctx context.Context, r io.Reader, dir string) ([]string, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("read archive: %v", err)
	}
	defer gz.Close()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, unwrapPath(err)
	}
	defer root.Close()

	tr := tar.NewReader(gz)
	var names []string
	var total int64
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			return names, nil
		}
		// ErrInsecurePath only reports what checkEntry below refuses with
		// a more precise reason.
		if err != nil && !(errors.Is(err, tar.ErrInsecurePath) && hdr != nil) {
			return nil, fmt.Errorf("read archive: %v", err)
		}
		if n >= maxArchiveEntries {
			return nil, fmt.Errorf("more than %d entries", maxArchiveEntries)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		name, err := checkEntry(hdr)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %v", hdr.Name, err)
		}
		if hdr.Typeflag == tar.TypeDir {
			continue
		}
		if hdr.Size > archiveLimit-total {
			return nil, fmt.Errorf("entry %q: declared size %d bytes takes the archive beyond the %d-byte limit", hdr.Name, hdr.Size, archiveLimit)
		}
		total += hdr.Size
		if err := extract(ctx, root, name, tr, hdr.Size); err != nil {
			return nil, fmt.Errorf("entry %q: %w", hdr.Name, err)
		}
		names = append(names, name)
	}
}

// checkEntry returns the cleaned name of an entry Open accepts, or why it
// refuses it. Only regular files and directories are accepted: a link, even
// one pointing inside the bundle, could be combined with a later entry to
// write or read outside it, and a sparse file expands to its declared size
// from almost no compressed data.
func checkEntry(hdr *tar.Header) (string, error) {
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeDir:
	case tar.TypeSymlink:
		return "", fmt.Errorf("symbolic link to %q refused", hdr.Linkname)
	case tar.TypeLink:
		return "", fmt.Errorf("hard link to %q refused", hdr.Linkname)
	default:
		return "", fmt.Errorf("entry type %q refused: only regular files and directories are allowed", hdr.Typeflag)
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return "", errors.New("sparse file refused")
		}
	}
	name := hdr.Name
	switch {
	case name == "":
		return "", errors.New("empty name")
	case strings.HasPrefix(name, "/"):
		return "", errors.New("absolute path")
	case strings.Contains(name, `\`):
		return "", errors.New("backslash in name")
	case filepath.VolumeName(name) != "":
		return "", errors.New("volume name in path")
	}
	for _, elem := range strings.Split(name, "/") {
		if elem == ".." {
			return "", errors.New("escapes the bundle")
		}
	}
	clean := path.Clean(name)
	if clean == "." && hdr.Typeflag != tar.TypeDir {
		return "", errors.New("not a file name")
	}
	return clean, nil
}

// extract writes size bytes from r to name below root, checking ctx
// between chunks. O_EXCL refuses a second entry with the same name, which
// would otherwise silently replace evidence already unpacked.
func extract(ctx context.Context, root *os.Root, name string, r io.Reader, size int64) error {
	if d := path.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o755); errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTDIR) {
			return errors.New("conflicts with an earlier entry")
		} else if err != nil {
			return unwrapPath(err)
		}
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return errors.New("conflicts with an earlier entry")
	}
	if err != nil {
		return unwrapPath(err)
	}
	buf := make([]byte, min(size, extractChunk))
	for size > 0 && err == nil {
		if err = ctx.Err(); err != nil {
			break
		}
		var n int
		n, err = io.ReadFull(r, buf[:min(int64(len(buf)), size)])
		size -= int64(n)
		if _, werr := f.Write(buf[:n]); err == nil {
			err = werr
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return unwrapPath(err)
}

// extractChunk is how much extract copies between two looks at its
// context: a fraction of a second of disk writes.
const extractChunk = 1 << 20

// commonTop returns the single top-level directory all names lie below, if
// there is one.
func commonTop(names []string) (string, bool) {
	top := ""
	for _, n := range names {
		first, _, ok := strings.Cut(n, "/")
		if !ok || (top != "" && first != top) {
			return "", false
		}
		top = first
	}
	return top, top != ""
}

// WriteTarGz packs the bundle directory dir into the gzip-compressed tar
// archive dst. Entries are placed below a directory named after dir, so that
// unpacking the archive by hand does not scatter files into the current
// directory; Open accepts both layouts. The archive is written to a
// temporary file and renamed, so an interrupted call leaves no truncated
// archive behind.
func WriteTarGz(dir, dst string) error {
	if err := writeTarGz(dir, dst); err != nil {
		return fmt.Errorf("pack bundle %s into %s: %w", dir, dst, err)
	}
	return nil
}

func writeTarGz(dir, dst string) (err error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	absDst, err := filepath.Abs(dst)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(absDir, absDst); err == nil && filepath.IsLocal(rel) {
		return errors.New("archive would be inside the bundle it packs")
	}
	fi, err := os.Stat(absDir)
	if err != nil {
		return unwrapPath(err)
	}
	if !fi.IsDir() {
		return errors.New("not a directory")
	}
	top := filepath.Base(absDir)
	if top == string(filepath.Separator) || top == "." {
		top = "bundle"
	}

	out, err := os.CreateTemp(filepath.Dir(absDst), "."+filepath.Base(absDst)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(out.Name())
		}
	}()
	gz := gzip.NewWriter(out)
	tw := tar.NewWriter(gz)
	err = filepath.WalkDir(absDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(absDir, p)
		if err != nil {
			return err
		}
		name := top
		if rel != "." {
			name = top + "/" + filepath.ToSlash(rel)
		}
		switch {
		case d.IsDir():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755, ModTime: info.ModTime()})
		case d.Type().IsRegular():
			return addFile(tw, p, name)
		default:
			return fmt.Errorf("%s: not a regular file or directory", rel)
		}
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	if err := out.Chmod(0o644); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(out.Name(), absDst)
}

// addFile appends the regular file p to tw as name. Ownership is left out:
// user names mean nothing on the machine the bundle is sent to.
func addFile(tw *tar.Writer, p, name string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", p)
	}
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     name,
		Size:     fi.Size(),
		Mode:     0o644,
		ModTime:  fi.ModTime(),
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	// CopyN rather than Copy: a file still growing must not overrun the
	// size already written into the header.
	_, err = io.CopyN(tw, f, fi.Size())
	if err == io.EOF {
		err = fmt.Errorf("%s: file shrank while being archived", p)
	}
	return err
}
