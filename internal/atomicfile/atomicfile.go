// Package atomicfile writes a file so that a failure part-way never leaves
// the user's file half-written: a full disk or an interrupted run leaves the
// old contents in place. It is how gcdoctor writes reports (-o FILE) and
// applies fixes to source files.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes what fill produces to path.
//
// A regular file, or a path that does not exist yet, is replaced
// atomically: the data goes to a temporary file in the same directory,
// which is synced and then renamed over path. An existing file keeps its
// permission bits; a new one gets perm.
//
// A symbolic link is followed: the file it points to is replaced and the
// link stays a link. Anything that is not a regular file (a device such as
// /dev/null or /dev/stdout, a FIFO, a socket) is written through in place,
// as a shell redirection would, since renaming over it would destroy it.
// A directory is refused.
func Write(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	st, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return replace(target, perm, fill)
	case err != nil:
		return err
	case st.IsDir():
		return fmt.Errorf("%s: is a directory", path)
	case !st.Mode().IsRegular():
		return writeThrough(target, fill)
	}
	return replace(target, st.Mode().Perm(), fill)
}

// WriteFile writes data to path as Write does.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// resolve follows symbolic links to the file they name. A dangling link
// resolves to the path it points to, which the write then creates.
func resolve(path string) (string, error) {
	for range 40 { // as many links as Linux follows (MAXSYMLINKS)
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

func writeThrough(path string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func replace(path string, perm fs.FileMode, fill func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
