package xlsx

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// scenariosMD, when set, receives this scenario's markdown row of
// docs/scenarios.md (examples/scenarios.sh sets it).
var scenariosMD = flag.String("scenarios-md", "", "write the scenario table row (markdown) to this file")

type runResult struct {
	Findings []finding `json:"findings"`
	Run      struct {
		PeakRSSBytes int64 `json:"peak_rss_bytes"`
	} `json:"run"`
	Segments []struct {
		Summary struct {
			Cycles     float64 `json:"cycles"`
			PeakHeapMB float64 `json:"peak_heap_mb"`
			LiveMaxMB  float64 `json:"live_max_mb"`
		} `json:"summary"`
	} `json:"segments"`
}

// finding is one finding of the diagnosis.
type finding struct {
	ID    string `json:"id"`
	Where []struct {
		File string `json:"file"`
		Line int    `json:"line"`
	} `json:"where"`
	Evidence []struct {
		Label string  `json:"label"`
		Value float64 `json:"value"`
	} `json:"evidence"`
	Remedy string `json:"remedy"`
}

// peakSiteID is the rule that names the site holding the peak heap.
const peakSiteID = "peak-heap-site"

// peakSite returns what peak-heap-site says the site holds (MiB, and % of
// the in-use heap), when it fired naming problem/main.go's SetSheetRow line
// and advising excelize's StreamWriter.
func (r *runResult) peakSite(t *testing.T) ([2]float64, bool) {
	t.Helper()
	line := sheetRowLine(t)
	for _, f := range r.Findings {
		if f.ID != peakSiteID || len(f.Where) == 0 || !strings.HasSuffix(f.Where[0].File, "problem/main.go") || f.Where[0].Line != line ||
			!strings.Contains(f.Remedy, "StreamWriter") {
			continue
		}
		var v [2]float64
		for _, e := range f.Evidence {
			switch e.Label {
			case "held by the site":
				v[0] = e.Value
			case "share of the in-use heap":
				v[1] = e.Value
			}
		}
		return v, v[0] > 0 && v[1] >= 40
	}
	return [2]float64{}, false
}

// sheetRowLine is the line of problem/main.go that calls SetSheetRow.
func sheetRowLine(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("problem", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "f.SetSheetRow(") {
			return i + 1
		}
	}
	t.Fatal("problem/main.go calls no SetSheetRow")
	return 0
}

func (r *runResult) ids() string {
	var ids []string
	for _, f := range r.Findings {
		ids = append(ids, f.ID)
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

func build(t *testing.T, dir, out, pkg string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

func run(t *testing.T, gcdoctor, bin string) *runResult {
	t.Helper()
	cmd := exec.Command(gcdoctor, "doctor", "--json", "--", bin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") && !strings.HasPrefix(kv, "GODEBUG=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gcdoctor doctor -- %s: %v", bin, err)
	}
	// The program's own output comes first; the diagnosis is the JSON
	// document that ends the output.
	if i := bytes.Index(out, []byte("{\n")); i > 0 {
		out = out[i:]
	}
	r := new(runResult)
	if err := json.Unmarshal(out, r); err != nil {
		t.Fatalf("gcdoctor doctor -- %s: %v", bin, err)
	}
	if len(r.Segments) != 1 {
		t.Fatalf("gcdoctor doctor -- %s: %d processes in the log, want 1", bin, len(r.Segments))
	}
	return r
}

// TestXLSX builds a sheet in memory and streamed, under gcdoctor doctor, and
// checks that the in-memory variant's peak heap is much larger, that
// peak-heap-site names the line of problem/main.go that builds the sheet
// and suggests the StreamWriter, and that it stays quiet on the streamed
// variant.
func TestXLSX(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy scenario; run without -short")
	}
	dir := t.TempDir()
	gcdoctor := filepath.Join(dir, "gcdoctor")
	build(t, filepath.Join("..", ".."), gcdoctor, "./cmd/gcdoctor")
	build(t, ".", filepath.Join(dir, "problem"), "./problem")
	build(t, ".", filepath.Join(dir, "fixed"), "./fixed")
	p := run(t, gcdoctor, filepath.Join(dir, "problem"))
	f := run(t, gcdoctor, filepath.Join(dir, "fixed"))

	ps, fs := p.Segments[0].Summary, f.Segments[0].Summary
	fig := fmt.Sprintf("peak heap %.0f MB vs %.0f MB (%.1f×), max live heap %.0f vs %.0f MB, peak RSS %.0f vs %.0f MiB, %.0f vs %.0f cycles; findings: %s / %s",
		ps.PeakHeapMB, fs.PeakHeapMB, ps.PeakHeapMB/fs.PeakHeapMB, ps.LiveMaxMB, fs.LiveMaxMB,
		float64(p.Run.PeakRSSBytes)/(1<<20), float64(f.Run.PeakRSSBytes)/(1<<20), ps.Cycles, fs.Cycles, p.ids(), f.ids())
	if ps.PeakHeapMB < 3*fs.PeakHeapMB {
		t.Errorf("in-memory peak heap %.0f MB, want at least 3× the streamed %.0f MB", ps.PeakHeapMB, fs.PeakHeapMB)
	}
	held, ok := p.peakSite(t)
	if ok {
		fig += fmt.Sprintf("; peak-heap-site: %.0f MiB held (%.0f%% of the in-use heap)", held[0], held[1])
	}
	t.Log(fig)
	pcell, fcell := "peak-heap-site ✓", "quiet ✓"
	if !ok {
		pcell = "peak-heap-site ✗"
		t.Errorf("in memory: peak-heap-site did not name problem/main.go's SetSheetRow line; findings: %s", p.ids())
	}
	if slices.ContainsFunc(f.Findings, func(x finding) bool { return x.ID == peakSiteID }) {
		fcell = "peak-heap-site ✗"
		t.Errorf("streamed: peak-heap-site fired; findings: %s", f.ids())
	}
	if *scenariosMD != "" {
		line := fmt.Sprintf("| xlsx | 003 | `xlsx/problem` | `xlsx/fixed` | run | peak-heap-site | %s | %s | %s |\n", pcell, fcell, fig)
		if err := os.WriteFile(*scenariosMD, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
