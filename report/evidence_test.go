package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/heapprof"
)

// Hostile strings planted in the evidence: each would add markup, script
// or table cells if a renderer let it through.
const (
	hostileFunc  = "main.<script>alert(1)</script>"
	hostileFile  = "/work/main/heapprof/testdata/scenarios/big|buf`x`.go"
	hostileGroup = "main.<img src=x onerror=alert(2)>|worker"
	hostileLog   = "gc <b>bold</b> | *log*.txt"
	hostileLint  = "time.After <script>alert(3)</script> in a `loop` | [x](y)"
)

// fixture names real evidence committed in the repository to build a
// diagnosis from; an empty name leaves that kind of evidence out. A bundle
// holds all three kinds from one run of one program; the separate files
// come from different real programs, which the charts and tables do not
// mind (the diagnosis may: see evidence-mismatch).
type fixture struct {
	// bundle is a directory under internal/cli/testdata holding
	// gctrace.log, allocs.pb.gz and trace.out, as gcdoctor run and attach
	// write them; it replaces log, profile and trace.
	bundle  string
	log     string // under gctrace/testdata/real
	profile string // under heapprof/testdata/profiles
	trace   string // under exectrace/testdata
	// hostile renames the profile's hottest user function, its file, the
	// busiest goroutine group and the log.
	hostile bool
	// keepCycles keeps the gctrace cycles, as the charts need.
	keepCycles bool
}

var (
	demoBundle   = fixture{bundle: "demo-bundle", keepCycles: true}
	fullEvidence = fixture{log: "go1.26-alloc.log", profile: "bigbuf.pprof", trace: "small.trace", keepCycles: true}
	hostileAll   = fixture{log: "go1.26-alloc.log", profile: "bigbuf.pprof", trace: "small.trace", keepCycles: true, hostile: true}
)

func (fx fixture) diagnosis(t testing.TB) *diagnose.Diagnosis {
	t.Helper()
	logPath := filepath.Join("..", "gctrace", "testdata", "real", fx.log)
	profPath := filepath.Join("..", "heapprof", "testdata", "profiles", fx.profile)
	tracePath := filepath.Join("..", "exectrace", "testdata", fx.trace)
	if fx.bundle != "" {
		dir := filepath.Join("..", "internal", "cli", "testdata", fx.bundle)
		fx.log, fx.profile, fx.trace = fx.bundle+"/gctrace.log", fx.bundle+"/allocs.pb.gz", fx.bundle+"/trace.out"
		logPath, profPath, tracePath = filepath.Join(dir, "gctrace.log"), filepath.Join(dir, "allocs.pb.gz"), filepath.Join(dir, "trace.out")
	}
	in := &diagnose.Input{}
	if fx.log != "" {
		f, err := os.Open(logPath)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		name := fx.log
		if fx.hostile {
			name = hostileLog
		}
		log, err := gctrace.Parse(f, name, gctrace.Options{KeepCycles: fx.keepCycles})
		if err != nil {
			t.Fatal(err)
		}
		in.Log = log
	}
	if fx.profile != "" {
		data, err := os.ReadFile(profPath)
		if err != nil {
			t.Fatal(err)
		}
		if fx.hostile {
			data = plant(t, data)
		}
		p, err := heapprof.Read(bytes.NewReader(data), fx.profile)
		if err != nil {
			t.Fatal(err)
		}
		in.Heap = &diagnose.HeapEvidence{Name: fx.profile, Profile: p, Top: p.Top(heapprof.SiteOptions{N: 10})}
	}
	if fx.trace != "" {
		res, err := exectrace.AnalyzeFile(tracePath, exectrace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if fx.hostile {
			for i := range res.Groups {
				if !res.Groups[i].Runtime {
					res.Groups[i].Name = hostileGroup
					break
				}
			}
		}
		in.Trace = &diagnose.TraceEvidence{Name: fx.trace, Result: res}
	}
	if fx.hostile {
		// A source check on the hostile site's line, so that it is
		// weighed and folded into the heap finding, and tuning advice
		// for a budget.
		in.Lint = &diagnose.LintEvidence{Patterns: []string{"./..."}, Findings: []diagnose.LintFinding{
			{Rule: "timeafterloop", File: hostileFile, Line: 13, Message: hostileLint},
			{Rule: "sprintfconv", File: "cold.go", Line: 1, Message: "cold"},
		}}
		in.Tune = &diagnose.TuneRequest{Budget: 1 << 30, BudgetSource: "--budget"}
	}
	d := diagnose.Diagnose(in)
	d.FirstActions = true
	return d
}

// plant renames the function that allocates the profile's big buffers,
// and its file, to hostile strings.
func plant(t testing.TB, data []byte) []byte {
	t.Helper()
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fn := range p.Function {
		if fn.Name == "main.bigbufHandler" {
			fn.Name, fn.SystemName, fn.Filename = hostileFunc, hostileFunc, hostileFile
			n++
		}
	}
	if n == 0 {
		t.Fatal("main.bigbufHandler not in the profile")
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestFixtureHasHostileSite guards the tests that rely on the planted
// name: it must reach the report as a ranked allocation site.
func TestFixtureHasHostileSite(t *testing.T) {
	d := hostileAll.diagnosis(t)
	found := false
	for _, s := range d.HeapSites() {
		found = found || (s.Function == hostileFunc && s.File == hostileFile)
	}
	if !found {
		t.Fatalf("no site named %q in %v", hostileFunc, d.HeapSites())
	}
	if !strings.Contains(d.Log.Inputs[0].Name, "<b>") {
		t.Fatal("log name not planted")
	}
}
