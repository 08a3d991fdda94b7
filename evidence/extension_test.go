package evidence_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
	"github.com/gcdoctor/gcdoctor/report"
)

// This file is the walk-through of docs/architecture.md as a test: a kind
// of evidence that evidence, diagnose and report know nothing of
// (GODEBUG=inittrace=1 output: what each package's init allocated) is added
// from outside them with one reader, one rule and one section, each
// registered once, and a real inittrace log of the go command goes all the
// way through to a finding in the text and JSON reports.

// inits is the evidence: each package init with what it allocated.
type inits struct {
	name  string
	pkgs  []initLine
	bytes int64
}

type initLine struct {
	pkg    string
	bytes  int64
	allocs int64
}

func (*inits) Kind() string { return "inittrace" }

var initRE = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

func readInits(_ context.Context, r io.Reader, name string) (diagnose.Extension, error) {
	in := &inits{name: name}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		m := initRE.FindStringSubmatch(sc.Text())
		if m == nil {
			return nil, fmt.Errorf("%s:%d: not an inittrace line", name, n)
		}
		b, _ := strconv.ParseInt(m[2], 10, 64)
		a, _ := strconv.ParseInt(m[3], 10, 64)
		in.pkgs = append(in.pkgs, initLine{m[1], b, a})
		in.bytes += b
	}
	return in, sc.Err()
}

var initKind = evidence.Register(evidence.Reader{
	Name: "inittrace log", Command: "gcdoctor doctor",
	Sniff: func(head []byte) bool { return bytes.HasPrefix(head, []byte("init ")) },
	Read:  readInits,
})

func init() {
	diagnose.Register(&diagnose.Rule{
		ID: "init-heavy", Title: "Package init allocates a lot", Severity: diagnose.Info, Evidence: "inittrace",
		Rationale: "What init allocates is allocated before main runs, on every start.",
		Detection: "A package whose init allocates 1 KiB or more.",
		Remedy:    "Build the table lazily, with sync.OnceValue.", Verify: "Run with GODEBUG=inittrace=1 again.",
		Judge: func(in *diagnose.Input) []*diagnose.Finding {
			ext, _ := in.Extension("inittrace").(*inits)
			if ext == nil {
				return nil
			}
			var out []*diagnose.Finding
			for _, p := range ext.pkgs {
				if p.bytes >= 1<<10 {
					out = append(out, &diagnose.Finding{Message: fmt.Sprintf("init of %s allocates %d bytes.", p.pkg, p.bytes),
						Evidence: []diagnose.Evidence{{Label: "allocated at init", Value: float64(p.bytes), Unit: "B", Source: ext.name}}})
				}
			}
			return out
		},
	})
	report.RegisterSection(func(d *diagnose.Diagnosis) *report.Section {
		ext, _ := d.Extension("inittrace").(*inits)
		if ext == nil {
			return nil
		}
		return &report.Section{ID: "inittrace", Title: "Package init", Source: ext.name,
			Intro: fmt.Sprintf("%d packages, %d bytes allocated before main", len(ext.pkgs), ext.bytes),
			JSON:  []report.Field{{Key: "init_bytes", Value: ext.bytes}}}
	})
}

func TestExtension(t *testing.T) {
	set, err := evidence.Load(context.Background(), []string{"testdata/go-env.inittrace"}, evidence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Input.Extensions) != 1 {
		t.Fatalf("the inittrace log was not read as its own kind: %+v", set.Input)
	}
	// Asked for another kind only, the file is refused by name.
	if _, err := evidence.Load(context.Background(), []string{"testdata/go-env.inittrace"}, evidence.Options{Want: evidence.Heap}); err == nil ||
		!strings.Contains(err.Error(), "an inittrace log, not a heap profile (gcdoctor doctor reads it)") {
		t.Errorf("wrong kind: %v", err)
	}
	if initKind&evidence.All == 0 || initKind&(evidence.GCTrace|evidence.Heap|evidence.Trace) != 0 {
		t.Errorf("registered kind %b overlaps the built-in ones", initKind)
	}
	d := diagnose.Diagnose(set.Input)
	var found bool
	for _, f := range d.Findings {
		found = found || f.ID == "init-heavy"
	}
	if !found {
		t.Fatalf("the registered rule did not fire: %+v", d.Findings)
	}
	var text, js bytes.Buffer
	if err := report.Text(&text, d, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Package init") || !strings.Contains(text.String(), "init-heavy") {
		t.Errorf("the text report lacks the section or the finding:\n%s", text.String())
	}
	if err := report.JSON(&js, d, "test"); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc["init_bytes"] == nil {
		t.Errorf("the JSON lacks the section's key: %v", err)
	}
}
