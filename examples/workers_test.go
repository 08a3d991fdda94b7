package examples

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWorkersVerify traces seed 004's pipeline with an oversized pool, asks
// gcdoctor workers for a count, and checks it with --verify, the program
// told its size once by an environment variable and once by {N} in its
// arguments. Timings vary on a loaded machine, so the test holds the report
// to its structure: the sizes, a column and statistics for each, and a
// verdict naming the fastest, never to which size wins.
func TestWorkersVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline 24 times")
	}
	bin := binary(t, "workers")
	trace := filepath.Join(workDir, "workers-verify.trace")
	cmd := exec.Command(bin, "-workers", "64", "-jobs", "4000", "-trace", trace)
	cmd.Env = sanitizedEnv(nil)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"env", []string{"--size-env", "WORKERS", trace, "--", bin, "-jobs", "4000"}},
		{"argument", []string{trace, "--", bin, "-jobs", "4000", "-workers", "{N}"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
			defer cancel()
			args := append([]string{"workers", "--verify", "--count", "3", "--json"}, tt.args...)
			cmd := exec.CommandContext(ctx, gcdoctor, args...)
			cmd.Env = sanitizedEnv(nil)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("gcdoctor %s: %v\n%s", strings.Join(args, " "), err, lastLines(stderr.String(), 20))
			}
			checkVerified(t, stdout.Bytes())
		})
	}
	// The text report names every size and gives each a median ± CI.
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd = exec.CommandContext(ctx, gcdoctor, "workers", "--verify", "--count", "2", "--sizes", "1,4", trace, "--", bin, "-jobs", "2000", "-workers", "{N}")
	cmd.Env = sanitizedEnv(nil)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gcdoctor workers --verify: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"wall time (sec)", "  1 worker ", "  4 workers ", "median ± CI", "p=", "\nVerdict\n  "} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
	// Which size wins depends on the machine; that the verdict names one
	// does not.
	if _, verdict, _ := strings.Cut(text, "\nVerdict\n"); !strings.Contains(verdict, "ran fastest") && !strings.Contains(verdict, "had the lowest median wall time") {
		t.Errorf("the verdict names no fastest size:\n%s", verdict)
	}
	for i, l := range strings.Split(text, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d is %d columns wide: %q", i+1, n, l)
		}
	}
}

// checkVerified holds a workers --verify --json document to its shape.
func checkVerified(t *testing.T, out []byte) {
	t.Helper()
	var doc struct {
		Workers int `json:"workers"`
		Verify  *struct {
			Sizes             []int    `json:"sizes"`
			Recommended       int      `json:"recommended"`
			Current           int      `json:"current"`
			Best              *int     `json:"best"`
			BestIsRecommended bool     `json:"best_is_recommended"`
			Verdict           []string `json:"verdict"`
			Comparison        struct {
				Kind    string `json:"kind"`
				Columns []struct {
					Label string `json:"label"`
				} `json:"columns"`
				Rows []struct {
					Metric string `json:"metric"`
					Cells  []struct {
						N      int      `json:"n"`
						Median *float64 `json:"median"`
						Delta  *struct {
							P *float64 `json:"p"`
						} `json:"delta"`
					} `json:"cells"`
				} `json:"rows"`
			} `json:"comparison"`
		} `json:"verify"`
	}
	if err := json.Unmarshal(jsonPart(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	v := doc.Verify
	if v == nil {
		t.Fatalf("no verify object:\n%s", out)
	}
	if len(v.Sizes) < 3 || v.Sizes[0] != doc.Workers || v.Recommended != doc.Workers || v.Current != 64 || !slices.Contains(v.Sizes, 64) {
		t.Errorf("sizes %v, recommended %d of %d, current %d", v.Sizes, v.Recommended, doc.Workers, v.Current)
	}
	if v.Best == nil || !slices.Contains(v.Sizes, *v.Best) || v.BestIsRecommended != (*v.Best == v.Sizes[0]) || len(v.Verdict) == 0 {
		t.Errorf("best %v, best is recommended %v, verdict %q", v.Best, v.BestIsRecommended, v.Verdict)
	}
	c := v.Comparison
	if c.Kind != "workers" || len(c.Columns) != len(v.Sizes) || len(c.Rows) == 0 || c.Rows[0].Metric != "wall time" {
		t.Fatalf("comparison: kind %q, %d columns, %d rows", c.Kind, len(c.Columns), len(c.Rows))
	}
	for i, cell := range c.Rows[0].Cells {
		if cell.N != 3 || cell.Median == nil || (i > 0 && (cell.Delta == nil || cell.Delta.P == nil)) {
			t.Errorf("wall time of %s: n %d, median %v, delta %+v", c.Columns[i].Label, cell.N, cell.Median, cell.Delta)
		}
	}
}
