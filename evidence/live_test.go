package evidence

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/live"
)

// liveBundle holds what attach stored of a running program's own GC
// figures, and nothing else (see its capture.sh).
const liveBundle = "../diagnose/testdata/live/spiral"

func TestLoadLiveBundle(t *testing.T) {
	set, err := LoadBundle(context.Background(), liveBundle, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := set.Input.Live
	if l == nil || !slices.Equal(l.KPIs.Sources, []live.Source{live.Agent, live.MemStats, live.Metrics}) || l.KPIs.Cycles < 10 || !l.KPIs.GCCPU.Exact {
		t.Fatalf("live %+v", l)
	}
	if set.Input.GoVersion != l.KPIs.GoVersion || set.Input.GoVersion == "" {
		t.Errorf("go version %q, the program's %q", set.Input.GoVersion, l.KPIs.GoVersion)
	}
	// Only the command that wants every kind reads them.
	if _, err := LoadBundle(context.Background(), liveBundle, Options{Want: GCTrace}); !errors.Is(err, ErrNoEvidence) {
		t.Errorf("gctrace alone: %v", err)
	}
}

// TestLoadLiveDamaged: a sample that does not parse is left out with a
// note, and the window comes from the sources left; without the samples'
// times there is no window at all.
func TestLoadLiveDamaged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	if err := os.CopyFS(dir, os.DirFS(liveBundle)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics-end.txt"), []byte("go_goroutines{ 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := LoadBundle(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l := set.Input.Live; l == nil || slices.Contains(l.KPIs.Sources, live.Metrics) {
		t.Errorf("live %+v", l)
	}
	if notes := strings.Join(set.Notes, "\n"); !strings.Contains(notes, "metrics-end.txt left out") {
		t.Errorf("notes:\n%s", notes)
	}
	if err := os.WriteFile(filepath.Join(dir, live.TimesFile), []byte("stage,unix_nano\nstart,soon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadBundle(context.Background(), dir, Options{})
	if !errors.Is(err, ErrNoEvidence) || !strings.Contains(err.Error(), `live.csv:2: "soon" is not a time`) {
		t.Errorf("error %v", err)
	}
}
