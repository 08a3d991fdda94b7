package examples

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// commandTimeout bounds one printed command: a rerun of the program and a
// diff, or a sweep of ten runs of it.
const commandTimeout = 3 * time.Minute

// TestCheckCommands diagnoses example programs as a user would, from a
// bundle of gcdoctor run with the program's allocs profile added, and runs
// every check command that gcdoctor doctor prints under "What to do first",
// as printed, in a shell in the directory doctor ran in. A command that
// does not run (a placeholder, a file nothing makes, a gcdoctor that is not
// on the PATH) fails the test. The cheap programs run always; the rest of
// the scenarios' problem programs with GCDOCTOR_LONG=1.
func TestCheckCommands(t *testing.T) {
	tests := []struct {
		v      variant
		source bool // doctor --source: the source checks and escape analysis
		long   bool
	}{
		{v: variant{pkg: "timeafter/problem"}, source: true},
		{v: variant{pkg: "forcedgc/problem"}},
		{v: variant{pkg: "growth/problem"}, long: true},
		{v: variant{pkg: "bigbuf/problem"}, long: true},
		{v: variant{pkg: "gccpu/problem", env: []string{"GOGC=50"}}, long: true},
		{v: variant{pkg: "iocopy/problem"}, long: true},
		{v: variant{pkg: "largevalue/problem"}, long: true},
	}
	ran := 0
	for _, tt := range tests {
		t.Run(tt.v.pkg, func(t *testing.T) {
			if tt.long {
				requireLong(t)
			}
			cmds := checkCommands(t, tt.v, tt.source)
			if len(cmds) == 0 {
				t.Fatal("doctor printed no check command")
			}
			for _, c := range cmds {
				runPrinted(t, c, tt.v.env)
				ran++
			}
		})
	}
	t.Logf("%d commands ran as printed", ran)
}

// checkCommands collects a bundle for v and returns the distinct check
// commands of doctor's "what to do first".
func checkCommands(t *testing.T, v variant, source bool) []string {
	t.Helper()
	bin := binary(t, v.pkg)
	b := filepath.Join(t.TempDir(), "evidence")
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, gcdoctor, "run", "--out", b, "--", bin)
	cmd.Env = sanitizedEnv(v.env)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcdoctor run %v: %v\n%s", v, err, lastLines(string(out), 20))
	}
	cmd = exec.CommandContext(ctx, bin, "-memprofile", filepath.Join(b, "allocs.pb.gz"))
	cmd.Env = sanitizedEnv(v.env)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v -memprofile: %v\n%s", v, err, lastLines(string(out), 20))
	}
	args := []string{"doctor", "--json"}
	if source {
		args = append(args, "--dir", "..", "--source", "./examples/"+v.pkg)
	}
	cmd = exec.CommandContext(ctx, gcdoctor, append(args, b)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gcdoctor doctor %v: %v\n%s", v, err, lastLines(stderr.String(), 20))
	}
	var doc struct {
		Actions []struct {
			ID      string `json:"id"`
			Command string `json:"command"`
		} `json:"actions"`
	}
	if err := json.Unmarshal(jsonPart(out), &doc); err != nil {
		t.Fatalf("gcdoctor doctor %v: %v", v, err)
	}
	var cmds []string
	seen := map[string]bool{}
	for _, a := range doc.Actions {
		t.Logf("%s: %s", a.ID, a.Command)
		if a.Command != "" && !seen[a.Command] {
			seen[a.Command] = true
			cmds = append(cmds, a.Command)
		}
	}
	return cmds
}

// runPrinted runs a printed command in sh. It runs when it exits with 0,
// or, for gcdoctor lint, with 1 for the findings it printed.
func runPrinted(t *testing.T, command string, env []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = sanitizedEnv(env)
	// The program the command reruns may leave children behind on a
	// timeout: do not wait for their pipes.
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("$ %s  (%.1f s)", command, time.Since(start).Seconds())
	var xe *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Errorf("$ %s: still running after %v", command, commandTimeout)
	case err == nil:
		if stdout.Len() == 0 {
			t.Errorf("$ %s: printed nothing\n%s", command, lastLines(stderr.String(), 10))
		}
	case errors.As(err, &xe) && xe.ExitCode() == 1 && strings.Contains(command, " lint ") && stdout.Len() > 0:
	default:
		t.Errorf("$ %s: %v\n%s", command, err, lastLines(stderr.String(), 10))
	}
}

// requireLong skips a test unless the long end-to-end runs are asked for
// with GCDOCTOR_LONG=1, as .ci/run does: go test ./... alone stays within a
// couple of minutes on two cores.
func requireLong(t *testing.T) {
	t.Helper()
	if os.Getenv("GCDOCTOR_LONG") == "" {
		t.Skip(fmt.Sprintf("an end-to-end run of %s; set GCDOCTOR_LONG=1 to run it", t.Name()))
	}
}
