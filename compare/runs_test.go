package compare

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/pacer"
)

const realLogs = "../pacer/testdata/real/"

// TestSweepRuns feeds SweepRuns the gctrace logs of real runs of one
// program at GOGC=100 and GOGC=400, as collect would hand them over.
func TestSweepRuns(t *testing.T) {
	settings := []pacer.Setting{{GOGC: 100}, {GOGC: 400}}
	r := NewSweepRuns([]string{"./json-marshal"}, settings)
	add := func(i int, log string, cpu time.Duration) {
		t.Helper()
		m := Measured{GCTracePath: realLogs + log, Wall: 1500 * time.Millisecond, CPU: cpu,
			PeakRSS: 64 << 20, GoVersion: "go1.26.0"}
		if err := r.Add(i, m); err != nil {
			t.Fatalf("Add(%d, %s): %v", i, log, err)
		}
	}
	add(0, "json-marshal.gogc100.r1.log", 2*time.Second)
	add(1, "json-marshal.gogc400.r1.log", time.Second)
	add(0, "json-marshal.gogc100.r2.log", 2*time.Second)
	add(1, "json-marshal.gogc400.r2.log", time.Second)

	if len(r.Runs[0]) != 2 || len(r.Runs[1]) != 2 || r.GoVersion != "go1.26.0" {
		t.Fatalf("runs %+v, go version %q", r.Runs, r.GoVersion)
	}
	if got := r.Runs[0][0]; got.GCCount != 106 || got.WallS != 1.5 || got.CPUS != 2 || got.PeakRSS != 64<<20 {
		t.Errorf("first run %+v", got)
	}
	if r.Model == nil {
		t.Fatalf("no model fitted from the first run: %v", r.ModelErr)
	}

	tab := r.Table()
	if !slices.Equal(tab.Columns, []string{"GOGC=100", "GOGC=400"}) || tab.Kind != "sweep" || tab.Title != "sweep of ./json-marshal" {
		t.Errorf("table header: %q %q %q", tab.Kind, tab.Title, tab.Columns)
	}
	gc := tab.Find("", MetricGCCount.Name)
	if gc == nil || gc.Cells[0].Predicted == nil || gc.Cells[1].Predicted == nil {
		t.Fatalf("GC count row without predictions: %+v", gc)
	}
	if gc.Cells[1].Predicted.Value >= gc.Cells[0].Predicted.Value {
		t.Errorf("predicted GC count at GOGC=400 (%v) not below GOGC=100 (%v)", gc.Cells[1].Predicted.Value, gc.Cells[0].Predicted.Value)
	}
	if !containsPrefix(tab.Caveats, "Each setting ran 2 times") || !containsPrefix(tab.Caveats, "CPU time is user plus system time") {
		t.Errorf("notes %q", tab.Caveats)
	}

	// A run whose CPU time is unknown says so in a note.
	add(1, "json-marshal.gogc400.r3.log", -1)
	if notes := r.Table().Caveats; !slices.Contains(notes, "CPU time could not be measured on this system.") {
		t.Errorf("notes %q", notes)
	}
}

// TestVariantRuns: columns that differ in the program, not in its GC
// setting, are labelled as given, compared with the first, and carry no
// predictions.
func TestVariantRuns(t *testing.T) {
	r := NewVariantRuns("workers", []string{"./pipeline", "-workers", "{N}"}, []string{"30 workers", "15 workers"}, pacer.Setting{GOGC: 100})
	for i, log := range []string{"json-marshal.gogc100.r1.log", "json-marshal.gogc100.r2.log", "json-marshal.gogc100.r3.log", "json-marshal.gogc100.r1.log"} {
		if err := r.Add(i%2, Measured{GCTracePath: realLogs + log, Wall: time.Duration(1+i%2) * time.Second, CPU: time.Second}); err != nil {
			t.Fatalf("Add(%d, %s): %v", i%2, log, err)
		}
	}
	if r.Model != nil || r.ModelErr != nil {
		t.Errorf("a model was fitted for variants: %v %v", r.Model, r.ModelErr)
	}
	tab := r.Table()
	if !slices.Equal(tab.Columns, []string{"30 workers", "15 workers"}) || tab.Kind != "workers" ||
		tab.Title != "workers: ./pipeline -workers {N}" || tab.Settings != nil || tab.ModelColumn != -1 {
		t.Errorf("table header: %q %q %q %v %d", tab.Kind, tab.Title, tab.Columns, tab.Settings, tab.ModelColumn)
	}
	wall := tab.Find("", MetricWall.Name)
	if wall == nil || wall.Cells[0].Summary.Median != 1 || wall.Cells[1].Summary.Median != 2 || wall.Cells[1].Delta == nil {
		t.Fatalf("wall time row %+v", wall)
	}
	for _, row := range tab.Rows {
		for _, c := range row.Cells {
			if c.Predicted != nil {
				t.Errorf("%s: a prediction for a variant", row.Metric.Name)
			}
		}
	}
	if !containsPrefix(tab.Caveats, "Each column ran 2 times, the columns interleaved") || !strings.Contains(tab.Caveats[0], "all under GOGC=100") {
		t.Errorf("notes %q", tab.Caveats)
	}

	// A program that never collects still has its times compared.
	r = NewVariantRuns("workers", []string{"./frugal"}, []string{"2 workers", "4 workers"}, pacer.Setting{GOGC: 100})
	for i := range 4 {
		if err := r.Add(i%2, Measured{GCTracePath: "testdata/notbench.txt", Wall: time.Second, CPU: -1}); err != nil {
			t.Fatalf("Add of a run without a GC cycle: %v", err)
		}
	}
	tab = r.Table()
	if tab.Find("", MetricWall.Name) == nil || tab.Find("", MetricGCCount.Name) != nil || !containsPrefix(tab.Caveats, "No run had a GC cycle") {
		t.Errorf("table without GC cycles: rows %d, notes %q", len(tab.Rows), tab.Caveats)
	}
}

func TestSweepRunsRejects(t *testing.T) {
	tests := []struct {
		name    string
		setting int
		trace   string
		want    string
	}{
		{"no cycle", 0, "testdata/notbench.txt", "no GC cycle in its output"},
		{"missing gctrace", 0, "testdata/no-such-file.log", "no such file"},
		{"no such setting", 2, realLogs + "json-marshal.gogc100.r1.log", "no setting 2 among 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewSweepRuns([]string{"prog"}, []pacer.Setting{{GOGC: 100}, {GOGC: 200}})
			err := r.Add(tt.setting, Measured{GCTracePath: tt.trace, CPU: -1})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Add: %v, want %q", err, tt.want)
			}
			if len(r.Runs[0])+len(r.Runs[1]) != 0 {
				t.Errorf("a rejected run was kept: %+v", r.Runs)
			}
		})
	}
}

// TestBenchRuns feeds BenchRuns the benchmark output of before.txt and
// after.txt as two settings' runs.
func TestBenchRuns(t *testing.T) {
	settings := []pacer.Setting{{GOGC: 100}, {GOGC: 400}}
	r := NewBenchRuns("./benchsrc", ".", settings, 1, true)
	r.Command = []string{"/tmp/x/pkg.test", "-test.run=^$", "-test.bench=."}
	if err := r.Add(0, Measured{OutputPath: "testdata/before.txt", GCTracePath: realLogs + "json-marshal.gogc100.r1.log", CPU: time.Second}); err != nil {
		t.Fatal(err)
	}
	// A run that never collected has unknown GC figures, not a failure.
	if err := r.Add(1, Measured{OutputPath: "testdata/after.txt", GCTracePath: "testdata/notbench.txt", CPU: time.Second}); err != nil {
		t.Fatal(err)
	}
	if r.Model == nil {
		t.Errorf("no model from the first run: %v", r.ModelErr)
	}
	if !math.IsNaN(r.Runs[1][0].GCCount) || r.Runs[0][0].GCCount != 106 {
		t.Errorf("GC counts %v and %v", r.Runs[0][0].GCCount, r.Runs[1][0].GCCount)
	}
	tab := r.Table()
	if tab.Title != "bench ./benchsrc -test.run=^$ -test.bench=." {
		t.Errorf("title %q", tab.Title)
	}
	join := tab.Find("Join-2", "sec/op")
	if join == nil || join.Cells[1].Delta == nil || !join.Cells[1].Delta.Significant {
		t.Errorf("Join-2 sec/op: %+v", join)
	}
	if gc := tab.Find("", MetricGCCount.Name); gc == nil || gc.Cells[0].Predicted == nil {
		t.Errorf("GC count row without a prediction: %+v", gc)
	}
}

func TestBenchRunsRejects(t *testing.T) {
	settings := []pacer.Setting{{GOGC: 100}, {GOGC: 400}}
	tests := []struct {
		name      string
		out, gc   string
		want      string
		wantModel error
	}{
		{"nothing matched", "testdata/notbench.txt", "testdata/notbench.txt", `no benchmark matches "Nothing"`, gctrace.ErrNoCycles},
		{"missing output", "testdata/no-such-file.txt", realLogs + "json-marshal.gogc100.r1.log", "GOGC=100, run 1 of 3: open testdata/no-such-file.txt", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewBenchRuns("./benchsrc", "Nothing", settings, 3, true)
			err := r.Add(0, Measured{OutputPath: tt.out, GCTracePath: tt.gc})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Add: %v, want %q", err, tt.want)
			}
			if !errors.Is(r.ModelErr, tt.wantModel) || (tt.wantModel == nil && r.ModelErr != nil) {
				t.Errorf("model error %v, want %v", r.ModelErr, tt.wantModel)
			}
		})
	}
}

func containsPrefix(list []string, prefix string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

// TestRunsNothing keeps compare to statistics: it reads what collect
// gathered and must not be able to run a program itself, on any system.
func TestRunsNothing(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the dependencies")
	}
	forbidden := []string{"github.com/gcdoctor/gcdoctor/collect", "os/exec"}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		t.Run(goos, func(t *testing.T) {
			cfg := &packages.Config{Mode: packages.NeedName | packages.NeedImports | packages.NeedDeps,
				Env: append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0"), Tests: false}
			pkgs, err := packages.Load(cfg, ".")
			if err != nil {
				t.Fatal(err)
			}
			if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
				t.Fatalf("loading compare: %v", pkgs)
			}
			seen := map[string]bool{}
			packages.Visit(pkgs, func(p *packages.Package) bool {
				seen[p.PkgPath] = true
				return true
			}, nil)
			if !seen["github.com/gcdoctor/gcdoctor/pacer"] {
				t.Fatalf("the dependency graph lacks pacer, which compare imports: %d packages", len(seen))
			}
			for _, f := range forbidden {
				if seen[f] {
					t.Errorf("compare depends on %s (GOOS=%s)", f, goos)
				}
			}
		})
	}
}

// TestPredictionBesideMeasurement holds the model's prediction for the
// setting it was fitted on against what the run it was fitted on
// measured: the same process (the busiest, in a log that also holds the go
// command and a compile) and the same GC CPU (pacer.GCCPUFraction), so
// that they agree within the model's replay tolerance of 25%, and the
// table's notes say how they compare.
func TestPredictionBesideMeasurement(t *testing.T) {
	tests := []struct {
		log  string
		wide bool // the fit's GC CPU range is widened for a weak fit
	}{
		{realLogs + "json-unmarshal.gogc100.r1.log", false},
		{realLogs + "json-marshal.gogc100.r1.log", true},
		// go test -bench: the go command, a compile and the test binary.
		{"../gctrace/testdata/real/bench-encoding-json.log", true},
	}
	for _, tt := range tests {
		t.Run(tt.log, func(t *testing.T) {
			r := NewSweepRuns([]string{"prog"}, []pacer.Setting{{GOGC: 100}, {GOGC: 400}})
			if err := r.Add(0, Measured{GCTracePath: tt.log, Wall: time.Second, CPU: -1}); err != nil {
				t.Fatal(err)
			}
			if r.Model == nil {
				t.Fatalf("no model: %v", r.ModelErr)
			}
			tab := r.Table()
			count, cpu := tab.Find("", MetricGCCount.Name), tab.Find("", MetricGCCPU.Name)
			if count == nil || cpu == nil || cpu.Cells[0].Predicted == nil {
				t.Fatalf("no GC rows with predictions")
			}
			if got := count.Cells[0].Sample[0]; got != float64(r.Model.Cycles) {
				t.Errorf("measured %v cycles, the model was fitted on %d: not the same process", got, r.Model.Cycles)
			}
			measured, predicted := cpu.Cells[0].Sample[0], cpu.Cells[0].Predicted
			m := r.Model
			if logged := m.CPUShare(m.LoggedCPUMS()) * 100; math.Abs(logged-measured) > 1e-9*logged {
				t.Errorf("measured GC CPU %v%%, but the cycles the model was fitted on give %v%%: two definitions", measured, logged)
			}
			if e := math.Abs(predicted.Value-measured) / measured; e > 0.25 {
				t.Errorf("GC CPU %.2f%% predicted at the fitted setting, %.2f%% measured on the run fitted", predicted.Value, measured)
			}
			if !pacer.Valid(predicted.Low) || !(predicted.Low <= predicted.Value && predicted.Value <= predicted.High) {
				t.Errorf("GC CPU range %v: want one around the value", *predicted)
			}
			if !containsPrefix(tab.Caveats, "The run of GOGC=100 the model was fitted on had") {
				t.Errorf("notes %q do not hold the replay against the run", tab.Caveats)
			}
			if got := containsPrefix(tab.Caveats, "GC CPU range widened"); got != tt.wide {
				t.Errorf("notes %q say the GC CPU range is widened: %v, want %v", tab.Caveats, got, tt.wide)
			}
		})
	}
}

// TestExperimentColumns feeds SweepRuns runs of two builds (GOEXPERIMENT
// values), as collect hands them over: a column per build and setting,
// and the model's predictions only for the build it was fitted on.
func TestExperimentColumns(t *testing.T) {
	settings := []pacer.Setting{{GOGC: 100}, {GOGC: 400}}
	r := NewSweepRuns([]string{"go", "run", "./json-marshal"}, settings, "greenteagc", "nogreenteagc")
	wantCols := []string{"greenteagc GOGC=100", "greenteagc GOGC=400", "nogreenteagc GOGC=100", "nogreenteagc GOGC=400"}
	if got := r.Column(1, 0); got != 2 {
		t.Errorf("Column(1, 0) = %d, want 2", got)
	}
	logs := []string{"json-marshal.gogc100.r1.log", "json-marshal.gogc400.r1.log", "json-marshal.gogc100.r2.log", "json-marshal.gogc400.r2.log"}
	for e := range 2 {
		for i := range settings {
			col := r.Column(e, i)
			if err := r.Add(col, Measured{GCTracePath: realLogs + logs[col], Wall: time.Second, CPU: time.Second}); err != nil {
				t.Fatalf("Add(%d): %v", col, err)
			}
		}
	}
	tab := r.Table()
	if !slices.Equal(tab.Columns, wantCols) {
		t.Errorf("columns %q, want %q", tab.Columns, wantCols)
	}
	gc := tab.Find("", MetricGCCount.Name)
	if gc == nil {
		t.Fatal("no GC count row")
	}
	for i, c := range gc.Cells {
		if got, want := c.Predicted != nil, i < 2; got != want {
			t.Errorf("column %s: predicted %v, want %v", wantCols[i], got, want)
		}
	}
	if !containsPrefix(tab.Caveats, "The program was built once with each of GOEXPERIMENT=greenteagc, GOEXPERIMENT=nogreenteagc") ||
		!containsPrefix(tab.Caveats, "No predictions for the builds without GOEXPERIMENT=greenteagc") {
		t.Errorf("notes %q", tab.Caveats)
	}

	// One setting: the builds name the columns alone.
	b := NewBenchRuns("./codec", ".", []pacer.Setting{{GOGC: 100}}, 1, true, "greenteagc", "nogreenteagc+randomizedheapbase64")
	if got := b.Table().Columns; !slices.Equal(got, []string{"greenteagc", "nogreenteagc+randomizedheapbase64"}) {
		t.Errorf("bench columns %q", got)
	}
}
