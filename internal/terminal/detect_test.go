package terminal

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestColor(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tt := range []struct {
		mode    string
		noColor bool
		w       io.Writer
		want    bool
	}{
		{"always", false, &bytes.Buffer{}, true},
		{"always", true, &bytes.Buffer{}, false}, // NO_COLOR wins
		{"never", false, &bytes.Buffer{}, false},
		{"auto", false, &bytes.Buffer{}, false}, // not a file
		{"auto", false, f, false},               // a file, not a terminal
	} {
		if got := Color(tt.mode, tt.noColor, tt.w); got != tt.want {
			t.Errorf("Color(%q, %v, %T) = %v, want %v", tt.mode, tt.noColor, tt.w, got, tt.want)
		}
	}
	if Is(f) || Is(&bytes.Buffer{}) {
		t.Error("Is: a regular file or a buffer is not a terminal")
	}
}
