package xlsx

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scenariosMD, when set, receives this scenario's markdown row of
// docs/scenarios.md (examples/scenarios.sh sets it).
var scenariosMD = flag.String("scenarios-md", "", "write the scenario table row (markdown) to this file")

type runResult struct {
	Findings []struct {
		ID string `json:"id"`
	} `json:"findings"`
	Run struct {
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
// checks that the in-memory variant's peak heap is much larger.
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
	t.Log(fig)
	cell := "measured ✓"
	if ps.PeakHeapMB < 3*fs.PeakHeapMB {
		cell = "measured ✗"
		t.Errorf("in-memory peak heap %.0f MB, want at least 3× the streamed %.0f MB", ps.PeakHeapMB, fs.PeakHeapMB)
	}
	if *scenariosMD != "" {
		line := fmt.Sprintf("| xlsx | 003 | `xlsx/problem` | `xlsx/fixed` | run | – | %s | %s | %s |\n", cell, cell, fig)
		if err := os.WriteFile(*scenariosMD, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
