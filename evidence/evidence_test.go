package evidence

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
)

// Real inputs from the other packages' testdata: a gctrace log of a Go
// 1.21 program, a heap profile of go test -memprofile, an execution trace of
// a small program, and the demo server's bundle.
const (
	logFile     = "../gctrace/testdata/real/go1.21-alloc.log"
	profileFile = "../heapprof/testdata/profiles/copy.pprof"
	legacyFile  = "../heapprof/testdata/profiles/compile-strconv.legacy"
	traceFile   = "../exectrace/testdata/small.trace"
	demoBundle  = "../internal/cli/testdata/demo-bundle"
)

// TestLoadSniffs reads files of every kind with no kind named: each lands
// where it belongs.
func TestLoadSniffs(t *testing.T) {
	set, err := Load(context.Background(), []string{logFile, profileFile, traceFile}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := set.Input
	if in.Log == nil || len(in.Log.Segments) != 1 {
		t.Errorf("gctrace not read: %+v", in.Log)
	}
	if in.Heap == nil || in.Heap.Name != profileFile || in.Heap.Top == nil {
		t.Errorf("profile not read: %+v", in.Heap)
	}
	if in.Trace == nil || in.Trace.Result == nil {
		t.Errorf("trace not read: %+v", in.Trace)
	}
	if len(set.Failed) > 0 || len(set.Notes) > 0 {
		t.Errorf("failed %v, notes %v", set.Failed, set.Notes)
	}
	// The legacy text format of heap profiles is a profile too.
	set, err = Load(context.Background(), []string{legacyFile}, Options{})
	if err != nil || set.Input.Heap == nil {
		t.Errorf("legacy profile: %v", err)
	}
}

// TestSetDiagnose holds the diagnosis of a set to the notes on what the
// set lacks: they are the report's caveats.
func TestSetDiagnose(t *testing.T) {
	set, err := Load(context.Background(), []string{profileFile}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	set.Notes = append(set.Notes, "No gctrace: the profile was read alone.")
	d := set.Diagnose()
	for _, n := range set.Notes {
		if !slices.Contains(d.Caveats, n) {
			t.Errorf("caveats %q lack the note %q", d.Caveats, n)
		}
	}
}

// TestLoadWrongKind names the command that reads a file of another kind.
func TestLoadWrongKind(t *testing.T) {
	for _, tt := range []struct {
		file string
		want Kind
		msg  string
	}{
		{traceFile, GCTrace | Heap, "an execution trace, not a heap profile or gctrace log (gcdoctor trace reads it)"},
		{profileFile, Trace | GCTrace, "a heap profile, not an execution trace or gctrace log (gcdoctor heap reads it)"},
	} {
		set, err := Load(context.Background(), []string{tt.file}, Options{Want: tt.want})
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s as %v: %v", tt.file, tt.want, err)
		}
		if set == nil || len(set.Failed) != 1 {
			t.Errorf("%s: failed inputs %+v", tt.file, set)
		}
	}
}

// TestLoadWrongProfile says what a pprof profile of a kind no command
// reads is, rather than calling every profile a heap profile.
func TestLoadWrongProfile(t *testing.T) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Skip("cpu profiler busy:", err)
	}
	pprof.StopCPUProfile()
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(context.Background(), []string{path}, Options{Want: Trace})
	if want := path + ": a CPU profile, not an execution trace"; err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "reads it") {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// TestLoadFailures keeps what could be read beside what could not, and
// says why nothing could be read when nothing could.
func TestLoadFailures(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.log")
	set, err := Load(context.Background(), []string{logFile, missing}, Options{Want: GCTrace})
	if err != nil {
		t.Fatal(err)
	}
	if set.Input.Log == nil || len(set.Failed) != 1 || !errors.Is(set.Failed[0], os.ErrNotExist) {
		t.Errorf("log %v, failed %v", set.Input.Log != nil, set.Failed)
	}
	if set.Err() == nil {
		t.Error("a failed input gives no error to end with")
	}
	if _, err := Load(context.Background(), []string{missing}, Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file alone: %v", err)
	}
	empty := t.TempDir()
	if _, err := Load(context.Background(), []string{empty}, Options{}); !errors.Is(err, ErrNoEvidence) {
		t.Errorf("empty directory: %v", err)
	}
	// A truncated gctrace log is read, and said to be partial.
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.log")
	if err := os.WriteFile(cut, data[:len(data)-20], 0o644); err != nil {
		t.Fatal(err)
	}
	set, err = Load(context.Background(), []string{cut}, Options{Want: GCTrace})
	if err != nil || set.Input.Log == nil || len(set.Failed) != 1 || !strings.Contains(set.Err().Error(), "partial") {
		t.Errorf("truncated log: err %v, failed %v", err, set.Failed)
	}
}

// TestLoadStdin reads standard input for "-" and for no source at all.
func TestLoadStdin(t *testing.T) {
	for _, sources := range [][]string{nil, {"-"}} {
		f, err := os.Open(logFile)
		if err != nil {
			t.Fatal(err)
		}
		set, err := Load(context.Background(), sources, Options{Stdin: f})
		f.Close()
		if err != nil || set.Input.Log == nil || set.Input.Log.Inputs[0].Name != "<stdin>" {
			t.Errorf("%v: %v", sources, err)
		}
	}
}

// TestLoadBundle reads the demo bundle with its run description, and only
// the kinds asked for.
func TestLoadBundle(t *testing.T) {
	set, err := Load(context.Background(), []string{demoBundle}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := set.Input
	if in.Log == nil || in.Heap == nil || in.Trace == nil || in.Run == nil || len(in.RSS) == 0 {
		t.Fatalf("bundle not read in full: log %v heap %v trace %v run %v rss %d", in.Log != nil, in.Heap != nil, in.Trace != nil, in.Run != nil, len(in.RSS))
	}
	if in.GoVersion == "" || set.Bundle != demoBundle || len(set.Notes) != 0 {
		t.Errorf("go version %q, bundle %q, notes %v", in.GoVersion, set.Bundle, set.Notes)
	}
	// Flags take precedence over what the bundle recorded.
	set, err = Load(context.Background(), []string{demoBundle}, Options{Want: Heap, GoVersion: "go1.20.1", GOGC: "400"})
	if err != nil {
		t.Fatal(err)
	}
	in = set.Input
	if in.Log != nil || in.Trace != nil || in.Heap == nil || in.GoVersion != "go1.20.1" || in.GOGC != "400" {
		t.Errorf("heap only: log %v trace %v heap %v, %s GOGC=%s", in.Log != nil, in.Trace != nil, in.Heap != nil, in.GoVersion, in.GOGC)
	}
	// A bundle missing a kind says so, and how to collect it.
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(demoBundle, "allocs.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "allocs.pb.gz"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	set, err = Load(context.Background(), []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(set.Notes, "\n")
	for _, want := range []string{"gcdoctor run records one", "gcdoctor attach --seconds N records one"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	// Without the kind asked for, there is nothing to diagnose.
	if _, err := Load(context.Background(), []string{dir}, Options{Want: Trace}); !errors.Is(err, ErrNoEvidence) {
		t.Errorf("trace from a bundle without one: %v", err)
	}
	if _, err := Load(context.Background(), []string{dir, logFile}, Options{}); err == nil {
		t.Error("a bundle beside a file was accepted")
	}
}

// TestLoadBundleHost reads a bundle with host.csv: its samples, the run's
// contention summary and how it ended, and every cycle kept, so that
// long pauses can be placed against the samples; a damaged host.csv is
// left out with a note.
func TestLoadBundleHost(t *testing.T) {
	const hostBundle = "../diagnose/testdata/host/pauses-hogs"
	set, err := Load(context.Background(), []string{hostBundle}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := set.Input
	if len(in.Host) < 2 || in.Run == nil || in.Run.Host == nil || in.Run.Stopped || !in.Run.ExitKnown {
		t.Fatalf("host samples %d, run %+v", len(in.Host), in.Run)
	}
	if in.Log == nil || len(in.Log.Segments) != 1 || len(in.Log.Segments[0].Cycles) == 0 {
		t.Errorf("the cycles were not kept for placing pauses in time")
	}

	dir := t.TempDir()
	for _, f := range []string{"gctrace.log", "meta.json"} {
		data, err := os.ReadFile(filepath.Join(hostBundle, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "host.csv"), []byte("elapsed_ms,load1\nx,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err = Load(context.Background(), []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(set.Notes, "\n"); len(set.Input.Host) != 0 || !strings.Contains(notes, `host.csv left out: bundle: host.csv:2: invalid elapsed_ms "x"`) {
		t.Errorf("damaged host.csv: %d samples, notes %q", len(set.Input.Host), notes)
	}
}
