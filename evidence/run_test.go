package evidence

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/diagnose"
)

// runCycle returns a Go 1.26 cycle line numbered num that starts s seconds
// after its process did.
func runCycle(num int, s float64) string {
	return fmt.Sprintf("gc %d @%.3fs 3%%: 0.1+1+0.01 ms clock, 0.2+0.1/0.5/0+0.02 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n", num, s)
}

// TestFromRunReplayed reads the log of a 0.5 s run that holds, besides
// cycles of its own, a block of compiler output printed again from an
// earlier run: the block is left out, and the notes say so.
func TestFromRunReplayed(t *testing.T) {
	own := runCycle(1, 0.01) + runCycle(2, 0.2) + runCycle(3, 0.4)
	replayed := "# runtime\n" + runCycle(1, 0.012) + runCycle(2, 4.6) + runCycle(3, 5.4)
	tests := []struct {
		name     string
		log      string
		lines    int // Result.Replayed
		segments int
		notes    []string
		err      string
	}{
		{"own cycles only", own, 0, 1, nil, ""},
		{"a replayed block", own + replayed, 0, 1, []string{"1 process (3 GC cycles) was left out: its cycles end after the run did"}, ""},
		{"lines collect left out", own, 4, 1, []string{"4 gctrace lines the go command replayed from its build cache were left out"}, ""},
		{"a line collect left out", own, 1, 1, []string{"1 gctrace line the go command replayed from its build cache was left out"}, ""},
		{"nothing of its own", replayed, 0, 0, nil, "no GC cycle of its own in its output, only 3 cycles printed again from earlier runs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gctrace.log")
			if err := os.WriteFile(path, []byte(tt.log), 0o644); err != nil {
				t.Fatal(err)
			}
			res := &collect.Result{Duration: 500 * time.Millisecond, GCTracePath: path, Replayed: tt.lines}
			set, err := FromRun(context.Background(), res, []string{"go", "build"}, Options{})
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := len(set.Input.Log.Segments); n != tt.segments {
				t.Errorf("%d segments, want %d", n, tt.segments)
			}
			if len(set.Notes) != len(tt.notes) {
				t.Fatalf("notes %q, want %q", set.Notes, tt.notes)
			}
			for i, want := range tt.notes {
				if !strings.HasPrefix(set.Notes[i], want) {
					t.Errorf("note %q, want it to start %q", set.Notes[i], want)
				}
			}
		})
	}
}

// TestFromKeptRun holds a run kept in a bundle to its check commands:
// they compare a new run with the bundle.
func TestFromKeptRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gctrace.log")
	if err := os.WriteFile(path, []byte(runCycle(1, 0.01)+runCycle(2, 0.2)), 0o644); err != nil {
		t.Fatal(err)
	}
	res := &collect.Result{Duration: 500 * time.Millisecond, GCTracePath: path}
	rc := diagnose.Recheck{Tool: "./gcdoctor"}
	for _, dir := range []string{"", "kept"} {
		set, err := FromKeptRun(context.Background(), res, []string{"./prog"}, dir, rc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if set.Input.Recheck.Tool != rc.Tool || set.Input.Bundle != dir {
			t.Errorf("dir %q: recheck %+v, bundle %q", dir, set.Input.Recheck, set.Input.Bundle)
		}
	}
}

// TestFromKeptRunNames checks what a run's unparsable gc lines are said
// to be in: the bundle's gctrace.log when the run was kept, where the
// user can look, and the run's output when it was not, since no file
// holds it any more.
func TestFromKeptRunNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gctrace.log")
	// A gc line another write of the program cut in two.
	log := runCycle(1, 0.01) + "gc 2 @0.200s 3%: 0.1+1\n" + runCycle(3, 0.4)
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	res := &collect.Result{Duration: 500 * time.Millisecond, GCTracePath: path}
	for _, tt := range []struct{ dir, want string }{
		{"", "the run's output"},
		{"kept", filepath.Join("kept", "gctrace.log")},
	} {
		set, err := FromKeptRun(context.Background(), res, []string{"./prog"}, tt.dir, diagnose.Recheck{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ins := set.Input.Log.Inputs
		if len(ins) != 1 || ins[0].Name != tt.want || ins[0].NErrors != 1 || ins[0].Errors[0].FileName != tt.want || ins[0].Errors[0].Line != 2 {
			t.Errorf("dir %q: inputs %+v, want one named %q with an error at line 2", tt.dir, ins, tt.want)
		}
	}
}
