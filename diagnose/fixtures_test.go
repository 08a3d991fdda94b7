package diagnose

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/escape"
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/heapprof"
)

// The fixtures under testdata/ are real evidence (see testdata/README.md).
// Each is read once per test binary: the analysed forms are not modified by
// Diagnose, so the cases share them.

var fixtureCache sync.Map // path → result of the loader

// cached returns load(path), computed once per path.
func cached[T any](t *testing.T, path string, load func(string) (T, error)) T {
	t.Helper()
	if v, ok := fixtureCache.Load(path); ok {
		return v.(T)
	}
	v, err := load(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	fixtureCache.Store(path, v)
	return v
}

// profileIn reads a heap profile, path relative to testdata/, once for
// all tests.
func profileIn(t *testing.T, path string) *heapprof.Profile {
	t.Helper()
	return cached(t, path, func(p string) (*heapprof.Profile, error) {
		f, err := os.Open(filepath.Join("testdata", p))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return heapprof.Read(f, p)
	})
}

// gctraceLog parses a gctrace log of testdata/, keeping its cycles for the
// pacer model and the cross-checks.
func gctraceLog(t *testing.T, path string) *gctrace.Log {
	t.Helper()
	return cached(t, path, func(p string) (*gctrace.Log, error) {
		f, err := os.Open(filepath.Join("testdata", p))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return gctrace.Parse(f, filepath.Base(p), gctrace.Options{KeepCycles: true})
	})
}

// heapModule is the import path prefix the heap profiles name their files
// with: testdata/heap was built with -trimpath.
const heapModule = "github.com/gcdoctor/gcdoctor/diagnose/"

// heapSource reads a line of a source file that a profile of testdata/heap
// names, as gcdoctor heap does with the files of the module it runs in.
func heapSource(file string, line int) string {
	rel, ok := strings.CutPrefix(file, heapModule)
	if !ok {
		return ""
	}
	v, ok := fixtureCache.Load(rel)
	if !ok {
		var lines []string
		if data, err := os.ReadFile(rel); err == nil { // unreadable: no source, as for gcdoctor
			lines = strings.Split(string(data), "\n")
		}
		v, _ = fixtureCache.LoadOrStore(rel, lines)
	}
	lines := v.([]string)
	if line < 1 || line > len(lines) {
		return ""
	}
	return lines[line-1]
}

// heapEvidence reads testdata/heap/NAME.pb.gz with the source lines and the
// escape analysis of the program that made it, as gcdoctor heap --source
// sees them.
func heapEvidence(t *testing.T, name string) *HeapEvidence {
	t.Helper()
	path := "heap/" + name + ".pb.gz"
	p := profileIn(t, path)
	esc := cached(t, "heap/escape.txt", func(p string) (*escape.Report, error) {
		f, err := os.Open(filepath.Join("testdata", p))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return escape.Parse(f, "")
	})
	// A HeapEvidence is cheap; its sites are computed per diagnosis.
	return &HeapEvidence{Name: path, Profile: p, Top: p.Top(heapprof.SiteOptions{N: 10}), Escape: esc, Source: heapSource}
}

// lintEvidence returns what `gcdoctor lint --json` found in testdata/heap
// (heap/lint.json, in the schema of docs/json.md), keeping the findings
// keep accepts, as the CLI turns them into diagnosis evidence.
func lintEvidence(t *testing.T, keep func(LintFinding) bool) *LintEvidence {
	t.Helper()
	type diag struct {
		Rule           string            `json:"rule"`
		File           string            `json:"file"`
		Line           int               `json:"line"`
		Column         int               `json:"column"`
		Message        string            `json:"message"`
		SuggestedFixes []json.RawMessage `json:"suggested_fixes"`
	}
	ds := cached(t, "heap/lint.json", func(p string) ([]diag, error) {
		data, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			return nil, err
		}
		var doc struct {
			Diagnostics []diag `json:"diagnostics"`
		}
		err = json.Unmarshal(data, &doc)
		return doc.Diagnostics, err
	})
	le := &LintEvidence{Patterns: []string{"./diagnose/testdata/heap"}}
	for _, d := range ds {
		f := LintFinding{Rule: d.Rule, Title: d.Rule, File: d.File, Line: d.Line, Column: d.Column,
			Message: d.Message, Fixable: len(d.SuggestedFixes) > 0}
		if keep(f) {
			le.Findings = append(le.Findings, f)
		}
	}
	return le
}

// traceEvidence analyses an execution trace of testdata/.
func traceEvidence(t *testing.T, path string) *TraceEvidence {
	t.Helper()
	res := cached(t, path, func(p string) (*exectrace.Result, error) {
		f, err := os.Open(filepath.Join("testdata", p))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return exectrace.Analyze(f, exectrace.Options{})
	})
	return &TraceEvidence{Name: path, Result: res}
}

// runInput reads a bundle that gcdoctor run recorded in testdata/ as the
// CLI does: the program's environment from meta.json, its RSS samples and
// its gctrace.
func runInput(t *testing.T, dir string) *Input {
	t.Helper()
	type run struct {
		meta *bundle.Meta
		rss  []bundle.RSSSample
		host []bundle.HostSample
	}
	r := cached(t, dir, func(p string) (run, error) {
		b, err := bundle.Open(filepath.Join("testdata", p))
		if err != nil {
			return run{}, err
		}
		defer b.Close()
		rss, err := b.RSS()
		if err != nil {
			return run{}, err
		}
		host, err := b.Host()
		if errors.Is(err, fs.ErrNotExist) {
			err = nil // recorded before host.csv existed
		}
		return run{b.Meta(), rss, host}, err
	})
	m := r.meta
	var log *gctrace.Log
	if st, err := os.Stat(filepath.Join("testdata", dir, "gctrace.log")); err == nil && st.Size() > 0 {
		log = gctraceLog(t, dir+"/gctrace.log")
	} // else a run too short for a cycle: its trace is the evidence
	in := &Input{
		Log:       log,
		GoVersion: m.GoVersion, GOGC: m.GOGC, GOMEMLIMIT: m.GOMEMLIMIT,
		RSS: r.rss, PeakRSS: m.PeakRSSBytes, Host: r.host,
		Run: &RunInfo{Command: m.Command, WallS: m.DurationMS / 1000, PeakRSS: m.PeakRSSBytes, GoVersion: m.GoVersion,
			GOGC: m.GOGC, GOMEMLIMIT: m.GOMEMLIMIT, GOMAXPROCS: m.GOMAXPROCS, NumCPU: m.NumCPU,
			Stopped: m.Stopped, StopKnown: m.Host != nil, Host: m.Host},
	}
	in.Run.ExitCode, in.Run.ExitKnown = m.Exit()
	return in
}
