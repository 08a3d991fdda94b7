package report

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/pacer"
	"github.com/gcdoctor/gcdoctor/workers"
)

// verifiedWorkers is a recommendation of 30 workers for a pool measured at
// 128, checked at 30, 15, 60 and 128 workers from real gctrace logs, two
// six runs each, 60 workers the fastest.
func verifiedWorkers(t *testing.T) *Workers {
	t.Helper()
	g := &exectrace.Group{Name: "main.worker", Count: 128, PeakLive: 128, RunningMS: 139.5, RunnableMS: 10246, SyscallMS: 1935}
	rec := workers.Recommend(workers.FromGroup(g), 2, workers.Options{})
	sizes := workers.Sizes(rec.Workers, g.PeakLive)
	var labels []string
	for _, n := range sizes {
		labels = append(labels, strconv.Itoa(n)+" workers")
	}
	cmd := []string{"./pipeline", "-workers", "{N}"}
	runs := compare.NewVariantRuns("workers", cmd, labels, pacer.Setting{GOGC: 100})
	walls := [][]float64{{0.189, 0.191, 0.188, 0.190, 0.192, 0.187}, {0.26, 0.25, 0.255, 0.27, 0.265, 0.262}, {0.181, 0.183, 0.18, 0.182, 0.184, 0.179}, {0.21, 0.22, 0.212, 0.215, 0.218, 0.211}}
	for r := range 6 {
		for i := range sizes {
			m := compare.Measured{GCTracePath: "../pacer/testdata/real/json-marshal.gogc100.r" + strconv.Itoa(1+(r+i)%3) + ".log",
				Wall: time.Duration(walls[i][r] * float64(time.Second)), CPU: time.Duration(walls[i][r] * 1.8 * float64(time.Second)), PeakRSS: int64(20+i) << 20}
			if err := runs.Add(i, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	v := &workers.Verification{Table: runs.Table(), Sizes: sizes, Recommended: sizes[0], Current: g.PeakLive, Command: cmd, SizeEnv: "WORKERS"}
	v.Table.Title = "./pipeline -workers {N} at 4 sizes, WORKERS=N and {N} in the arguments"
	v.Judge()
	return &Workers{Trace: "pipeline.trace", Group: g, Recommendation: rec, Verify: v}
}

func TestWorkersVerified(t *testing.T) {
	wr := verifiedWorkers(t)
	var text bytes.Buffer
	if err := WorkersText(&text, wr, TextOptions{Width: 80}); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(text.String(), "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d is %d columns wide: %q", i+1, n, l)
		}
	}
	golden(t, "workers-verify.txt", text.Bytes())

	var js bytes.Buffer
	if err := WorkersJSON(&js, wr, "v0.0.0-test"); err != nil {
		t.Fatal(err)
	}
	golden(t, "workers-verify.json", js.Bytes())
	var doc struct {
		Verify struct {
			Sizes             []int    `json:"sizes"`
			Best              int      `json:"best"`
			BestIsRecommended bool     `json:"best_is_recommended"`
			Significant       bool     `json:"significant"`
			Verdict           []string `json:"verdict"`
			Comparison        struct {
				Kind    string `json:"kind"`
				Columns []struct {
					Label string `json:"label"`
				} `json:"columns"`
				Rows []struct {
					Metric string `json:"metric"`
				} `json:"rows"`
			} `json:"comparison"`
		} `json:"verify"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	v := doc.Verify
	if len(v.Sizes) != 4 || v.Sizes[0] != 30 || v.Best != 60 || v.BestIsRecommended || !v.Significant || len(v.Verdict) == 0 ||
		v.Comparison.Kind != "workers" || len(v.Comparison.Columns) != 4 || v.Comparison.Columns[0].Label != "30 workers" || v.Comparison.Rows[0].Metric != "wall time" {
		t.Errorf("verify document: %+v", v)
	}
}
