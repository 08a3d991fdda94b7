package examples

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// leakReport is what the goroutine-leak scenario reads of gcdoctor attach
// --json.
type leakReport struct {
	Findings []struct {
		ID      string `json:"id"`
		Message string `json:"message"`
		Where   []struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"where"`
		Evidence []struct {
			Label string  `json:"label"`
			Value float64 `json:"value"`
		} `json:"evidence"`
	} `json:"findings"`
	Leaks *struct {
		Total int64 `json:"total"`
	} `json:"goroutine_leaks"`
}

// TestGoroutineLeak builds examples/goroutineleak with
// GOEXPERIMENT=goroutineleakprofile, attaches to each variant once it has
// served its requests, and checks that goroutine-leak names the go
// statement in problem's first and the send it blocks on, with the number
// that leaked (200 requests × 2 replicas whose answer is not read), and
// that the fixed variant's profile is empty.
func TestGoroutineLeak(t *testing.T) {
	requireLong(t)
	start, send := lineOf(t, "goroutineleak/problem/main.go", "go func() {"), lineOf(t, "goroutineleak/problem/main.go", "answers <- lookup(")
	tests := []struct {
		pkg   string
		leaks int64
	}{
		{"goroutineleak/problem", 400},
		{"goroutineleak/fixed", 0},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			r := attachLeaking(t, tt.pkg)
			if r.Leaks == nil || r.Leaks.Total != tt.leaks {
				t.Fatalf("goroutine_leaks = %+v, want a total of %d", r.Leaks, tt.leaks)
			}
			var found bool
			for _, f := range r.Findings {
				if f.ID != "goroutine-leak" {
					continue
				}
				found = true
				if tt.leaks == 0 {
					t.Errorf("goroutine-leak fired on an empty profile: %s", f.Message)
					continue
				}
				if len(f.Where) != 2 || !strings.HasSuffix(f.Where[0].File, tt.pkg+"/main.go") || f.Where[0].Line != start || f.Where[1].Line != send {
					t.Errorf("goroutine-leak names %+v, want main.go:%d (the go statement) and main.go:%d (the send)", f.Where, start, send)
				}
				if !strings.Contains(f.Message, "400 goroutines leaked") || !strings.Contains(f.Message, "a go statement in main.first") {
					t.Errorf("message: %s", f.Message)
				}
				t.Logf("%s", f.Message)
			}
			if !found && tt.leaks > 0 {
				t.Errorf("goroutine-leak did not fire")
			}
		})
	}
}

// lineOf returns the line of the file under examples/ that holds text.
func lineOf(t *testing.T, file, text string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%s holds no %q", file, text)
	return 0
}

// attachLeaking builds pkg with the goroutine-leak profile, starts it,
// waits for its "ready URL" line and diagnoses it with gcdoctor attach.
func attachLeaking(t *testing.T, pkg string) *leakReport {
	t.Helper()
	bin := filepath.Join(workDir, "leak_"+strings.ReplaceAll(pkg, "/", "_"))
	build := exec.Command("go", "build", "-o", bin, "./"+pkg)
	build.Env = append(os.Environ(), "GOEXPERIMENT=goroutineleakprofile")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./%s: %v\n%s", pkg, err, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	prog := exec.CommandContext(ctx, bin)
	prog.Env = sanitizedEnv(nil)
	stdout, err := prog.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := prog.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		prog.Process.Kill()
		prog.Wait()
	}()
	// The program prints its URL once its requests are served; the
	// context's deadline bounds the wait (Kill closes the pipe).
	var url string
	sc := bufio.NewScanner(stdout)
	for url == "" && sc.Scan() {
		url, _ = strings.CutPrefix(sc.Text(), "ready ")
	}
	if url == "" {
		t.Fatalf("%s printed no \"ready URL\" line: %v", pkg, sc.Err())
	}
	out, err := exec.CommandContext(ctx, gcdoctor, "attach", "--seconds", "0", "--json", "--out", filepath.Join(t.TempDir(), "b"), url+"/debug/pprof/").Output()
	if err != nil {
		t.Fatalf("gcdoctor attach %s: %v", url, err)
	}
	r := new(leakReport)
	if err := json.Unmarshal(jsonPart(out), r); err != nil {
		t.Fatalf("gcdoctor attach %s: %v", url, err)
	}
	return r
}
