package bundle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// listTree returns the paths below dir, relative and sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if rel, _ := filepath.Rel(dir, p); rel != "." {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// writeSome writes what a run writes before it fails.
func writeSome(t *testing.T, w *Writer) {
	t.Helper()
	for _, name := range []string{GCTraceFile, "profiles/heap.pb.gz"} {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("evidence")
		f.Close()
	}
	if err := w.WriteMeta(&Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRSS([]RSSSample{{RSS: 1}}); err != nil {
		t.Fatal(err)
	}
}

func TestAbort(t *testing.T) {
	t.Run("user-directory", func(t *testing.T) {
		// The user's own, prepared directory: Create accepts it empty,
		// and the user puts a file in it while the run goes on.
		dir := filepath.Join(t.TempDir(), "mine")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		w, err := Create(dir)
		if err != nil {
			t.Fatal(err)
		}
		writeSome(t, w)
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "profiles", "old"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
		if got, want := listTree(t, dir), []string{"notes.txt", "profiles", "profiles/old"}; !slices.Equal(got, want) {
			t.Errorf("after Abort: %q, want %q", got, want)
		}
		if data, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(data) != "mine" {
			t.Errorf("the user's file: %q, %v", data, err)
		}
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("the user's directory: %v, %v", fi, err)
		}
	})
	t.Run("new-directories", func(t *testing.T) {
		parent := t.TempDir()
		w, err := Create(filepath.Join(parent, "a", "b"))
		if err != nil {
			t.Fatal(err)
		}
		writeSome(t, w)
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
		if got := listTree(t, parent); len(got) != 0 {
			t.Errorf("after Abort: %q left", got)
		}
		if err := w.Abort(); err != nil {
			t.Errorf("second Abort: %v", err)
		}
		if _, err := w.Create(GCTraceFile); err == nil || !strings.Contains(err.Error(), "aborted") {
			t.Errorf("Create after Abort: %v", err)
		}
	})
	t.Run("new-directory-the-user-wrote-in", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "out")
		w, err := Create(dir)
		if err != nil {
			t.Fatal(err)
		}
		writeSome(t, w)
		os.WriteFile(filepath.Join(dir, "profiles", "keep"), nil, 0o644)
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
		if got, want := listTree(t, dir), []string{"profiles", "profiles/keep"}; !slices.Equal(got, want) {
			t.Errorf("after Abort: %q, want %q", got, want)
		}
	})
}

// TestWriterKeepsOthersFiles checks that the Writer replaces only what it
// wrote itself.
func TestWriterKeepsOthersFiles(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{GCTraceFile, MetaFile, RSSFile} {
		os.WriteFile(filepath.Join(dir, name), []byte("user"), 0o644)
	}
	if _, err := w.Create(GCTraceFile); err == nil || !strings.Contains(err.Error(), "not replacing it") {
		t.Errorf("Create over a user's file: %v", err)
	}
	if err := w.WriteMeta(&Meta{}); err == nil || !strings.Contains(err.Error(), "not replacing it") {
		t.Errorf("WriteMeta over a user's file: %v", err)
	}
	if err := w.WriteRSS(nil); err == nil || !strings.Contains(err.Error(), "not replacing it") {
		t.Errorf("WriteRSS over a user's file: %v", err)
	}
	for _, name := range []string{GCTraceFile, MetaFile, RSSFile} {
		if data, _ := os.ReadFile(filepath.Join(dir, name)); string(data) != "user" {
			t.Errorf("%s: %q", name, data)
		}
	}
	// What it wrote itself it may write again.
	os.Remove(filepath.Join(dir, MetaFile))
	for range 2 {
		if err := w.WriteMeta(&Meta{}); err != nil {
			t.Errorf("WriteMeta again: %v", err)
		}
	}
}

func TestMetaExit(t *testing.T) {
	tests := []struct {
		json  string
		code  int
		known bool
		str   string
	}{
		{`{}`, 0, false, "unknown"},
		{`{"exit_code":null}`, 0, false, "unknown"},
		{`{"exit_code":0}`, 0, true, "0"},
		{`{"exit_code":2}`, 2, true, "2"},
		{`{"exit_code":137}`, 137, true, "137 (signal 9)"},
	}
	for _, tt := range tests {
		m, err := decodeMeta([]byte(tt.json))
		if err != nil {
			t.Fatal(err)
		}
		code, known := m.Exit()
		if code != tt.code || known != tt.known || m.ExitString() != tt.str {
			t.Errorf("%s: %d, %v, %q; want %d, %v, %q", tt.json, code, known, m.ExitString(), tt.code, tt.known, tt.str)
		}
		// An unknown status stays unknown through a round trip.
		data, err := encodeMeta(m)
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]any
		json.Unmarshal(data, &raw)
		if _, ok := raw["exit_code"]; ok != tt.known {
			t.Errorf("%s: written as %s", tt.json, data)
		}
	}
	var none *Meta
	if _, known := none.Exit(); known || none.ExitString() != "unknown" {
		t.Error("a bundle without meta.json has a known exit status")
	}
}
