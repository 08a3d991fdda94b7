//go:build unix

package compare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// loadWithin runs Load with a deadline, so that a read that blocks fails
// the test instead of hanging it. On timeout it opens each FIFO for
// writing and closes it, which ends a blocked read.
func loadWithin(t *testing.T, spec string, fifos ...string) (*Side, error) {
	t.Helper()
	type result struct {
		s   *Side
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Load(spec)
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		return r.s, r.err
	case <-time.After(30 * time.Second):
		for _, f := range fifos {
			if fd, err := unix.Open(f, unix.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
				unix.Close(fd)
			}
		}
		t.Fatalf("Load(%s) still blocked after 30s", spec)
		return nil, nil
	}
}

// TestLoadSkipsFIFO: a FIFO in a directory of evidence is skipped with a
// note rather than opened, which would block until something wrote to
// it; a FIFO given by name is a one-line error.
func TestLoadSkipsFIFO(t *testing.T) {
	before, err := os.ReadFile("testdata/before.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		fifo    string // under the test's directory
		results bool   // the directory also holds before.txt
		spec    string // relative to the test's directory; "" is the directory
		wantErr string
	}{
		{name: "fifo beside results", fifo: "pipe", results: true},
		{name: "fifo with a bundle's name", fifo: "run.tar.gz", results: true},
		{name: "fifo in a subdirectory", fifo: "sub/pipe", results: true},
		{name: "only a fifo", fifo: "pipe", wantErr: "no benchmark results or gctrace logs found (1 file that is not a regular file skipped)"},
		{name: "fifo by name", fifo: "pipe", results: true, spec: "pipe", wantErr: "pipe: not a regular file or a directory"},
		{name: "fifo in a list", fifo: "pipe", results: true, spec: "before.txt,pipe", wantErr: "pipe: not a regular file or a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, tt.fifo)
			if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := unix.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			if tt.results {
				if err := os.WriteFile(filepath.Join(dir, "before.txt"), before, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			spec := dir
			if tt.spec != "" {
				var parts []string
				for _, p := range strings.Split(tt.spec, ",") {
					parts = append(parts, filepath.Join(dir, p))
				}
				spec = strings.Join(parts, ",")
			}
			s, err := loadWithin(t, spec, fifo)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Errorf("Load: %v, want one line with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Inputs) != 1 || s.Bench == nil {
				t.Errorf("inputs %q", s.Inputs)
			}
			want := "Skipped " + fifo + ": not a regular file."
			if len(s.Caveats) != 1 || s.Caveats[0] != want {
				t.Errorf("notes %q, want %q", s.Caveats, want)
			}
			// The note reaches the comparison.
			after, err := Load("testdata/after.txt")
			if err != nil {
				t.Fatal(err)
			}
			tab, err := Diff(s, after, [2]string{"before", "after"})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(tab.Caveats, "\n"), want) {
				t.Errorf("table notes %q lack %q", tab.Caveats, want)
			}
		})
	}
}

// TestLoadLinkLoop: a symbolic link from a directory to itself is read
// once, not followed until the path grows too long to resolve.
func TestLoadLinkLoop(t *testing.T) {
	dir := t.TempDir()
	before, err := os.ReadFile("testdata/before.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "before.txt"), before, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".", filepath.Join(dir, "loop")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	s, err := loadWithin(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Inputs) != 1 {
		t.Errorf("inputs %q, want before.txt once", s.Inputs)
	}
}
