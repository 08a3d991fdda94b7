package collect

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsURL(t *testing.T) {
	dir := t.TempDir()
	onDisk := filepath.Join(dir, "host:6060")
	if err := os.WriteFile(onDisk, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		arg  string
		want bool
	}{
		{"localhost:6060", true},
		{":6060", true},
		{"10.0.0.7:6060/debug/pprof/", true},
		{"http://svc.internal/debug/pprof/", true},
		{"https://admin:secret@host/x", true},
		{"plain.tar", false},
		{"evidence/", false},
		{"gc.log", false},
		{"host:port", false},
		{"C:\\logs:1", false},
		{onDisk, false},
	} {
		if got := IsURL(tt.arg); got != tt.want {
			t.Errorf("IsURL(%q) = %v, want %v", tt.arg, got, tt.want)
		}
	}
}
