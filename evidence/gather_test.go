package evidence

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gcdoctor/gcdoctor/collect"
)

// TestGather follows each of doctor's sources to its reader: files, a
// program to run, a URL to attach to.
func TestGather(t *testing.T) {
	ctx := context.Background()
	set, exit, err := Gather(ctx, []string{logFile}, false, collect.Spec{}, "", 0, Options{})
	if err != nil || exit != 0 || set.Input.Log == nil {
		t.Errorf("a file: exit %d, %v", exit, err)
	}

	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	_, exit, _ = Gather(ctx, []string{sh, "-c", "exit 3"}, true, collect.Spec{Stdout: io.Discard, Stderr: io.Discard}, "", 0, Options{})
	if exit != 3 {
		t.Errorf("a program that exits 3: exit %d", exit)
	}

	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := Gather(ctx, []string{srv.URL}, false, collect.Spec{}, dir, 0, Options{}); err == nil {
		t.Error("a URL without /debug/pprof: no error")
	}
}
