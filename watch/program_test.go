package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/evidence"
)

// TestProgram watches a program it starts, to its end, as JSON lines, and
// records it: the lines count the cycles the recorded gctrace holds, and
// doctor reads the recording.
func TestProgram(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "alloc")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/alloc").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	src, err := NewProgram(context.Background(), []string{bin}, true)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "rec")
	var out, errOut bytes.Buffer
	if err := Watch(context.Background(), src, Config{Interval: MinInterval, Record: dir, JSONLines: true, Out: &out, Err: &errOut, Tool: "gcdoctor"}); err != nil {
		t.Fatal(err)
	}
	cycles := 0
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var p struct {
			GCCycles int `json:"gc_cycles"`
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		cycles += p.GCCycles
	}
	if !strings.Contains(errOut.String(), bin+" ended: exit status 0") {
		t.Errorf("said %q", errOut.String())
	}
	set, err := evidence.Load(context.Background(), []string{dir}, evidence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Input.Log == nil || set.Input.Log.Cycles() == 0 {
		t.Fatalf("the recording has no cycles: notes %v", set.Notes)
	}
	// Cycles that ended before the first poll count in the first interval.
	if got := set.Input.Log.Cycles(); cycles != got {
		t.Errorf("the lines count %d cycles, the recording %d", cycles, got)
	}
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	m := b.Meta()
	if code, known := m.Exit(); !known || code != 0 || m.Stopped || len(m.Command) != 1 || !strings.Contains(m.GODEBUG, "gctrace=1") {
		t.Errorf("meta: exit %d (known %v), stopped %v, command %v, GODEBUG %q", code, known, m.Stopped, m.Command, m.GODEBUG)
	}
}

// TestProgramOutputEscaped: the program's own last line reaches the screen
// escaped.
func TestProgramOutputEscaped(t *testing.T) {
	p := &programSource{}
	w := &lineWriter{p: p}
	w.Write([]byte("first\nlast \x1b[2J"))
	w.flush()
	last, _, _ := p.Output()
	if last != `last \x1b[2J` {
		t.Errorf("last line %q", last)
	}
}

func FuzzLineWriter(f *testing.F) {
	f.Add([]byte("gc 1 @0.011s 2%: 0.010+0.5+0.002 ms clock, 0.020+0.1/0.2/0+0.004 ms cpu, 4->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P\n"), 7)
	f.Add([]byte("plain output\r\n\x00\xff"), 1)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		p := &programSource{logLimit: true}
		for _, stderr := range []bool{true, false} {
			w := &lineWriter{p: p, stderr: stderr}
			if cut <= 0 || cut > len(data) {
				cut = len(data)
			}
			w.Write(data[:cut])
			w.Write(data[cut:])
			w.flush()
			if len(w.buf) > maxLine {
				t.Fatalf("buffered %d bytes", len(w.buf))
			}
		}
		last, _, _ := p.Output()
		if strings.ContainsAny(last, "\x1b\r\x00") {
			t.Fatalf("output not escaped: %q", last)
		}
	})
}
