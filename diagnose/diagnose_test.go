package diagnose

import (
	"slices"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/escape"
	"github.com/gcdoctor/gcdoctor/gctrace"
)

// parseFile parses one of the real logs copied in testdata/gctrace.
func parseFile(t *testing.T, name string) *gctrace.Log {
	t.Helper()
	return gctraceLog(t, "gctrace/"+name)
}

func ids(d *Diagnosis) []string {
	var out []string
	for _, f := range d.Findings {
		out = append(out, f.ID)
	}
	return out
}

// TestCorpusFindings pins what each real log is diagnosed with: the
// problems its thread or article describes must be found, and rules that
// do not apply must stay quiet.
func TestCorpusFindings(t *testing.T) {
	tests := []struct {
		file      string
		goVersion string
		want      []string
		not       []string
	}{
		{"01-go10898-go15dev-hashnum-1P.log", "", []string{"stw-long", "gc-cpu-high"}, []string{"memlimit-death-spiral"}},
		{"04-go13392-pre15-gcforced-scvg-8P.log", "", []string{"stw-long"}, []string{"forced-gc", "gc-cpu-high"}},
		{"05-go14812-cockroach-go19-8P.log", "go1.9", []string{"assist-heavy"}, []string{"gc-cpu-high", "stw-long"}},
		{"07-go19393-huge-heap-22GB-48P.log", "go1.8", []string{"gc-cpu-high"}, []string{"stw-long", "memlimit-death-spiral"}},
		{"10-etcd8472-journald-scvg-2P.log", "", []string{"stw-long", "idle-heap-held"}, []string{"gc-cpu-high"}},
		{"12-go40225-go115beta1-pacertrace-24P.log", "go1.15", []string{"assist-heavy"}, []string{"gc-cpu-high"}},
		{"14-go44554-timestamp-prefixed-8P.log", "", []string{"idle-heap-held"}, []string{"gc-cpu-high", "stw-long", "live-heap-growth"}},
		{"15-go58106-gomemlimit-death-spiral-3P.log", "go1.19.5", []string{"memlimit-death-spiral", "gc-cpu-high"}, []string{"live-heap-growth"}},
		{"16-go41818-go-run-8P.log", "", nil, []string{"gc-cpu-high", "stw-long"}},
		{"seed002-go110-4P.log", "go1.10", []string{"gc-cpu-high", "assist-heavy"}, []string{"stw-long", "memlimit-death-spiral", "alloc-churn"}},
		{"gofmt-l-goroot-src.gctrace.log", "go1.26", []string{"gc-cpu-high", "alloc-churn"}, []string{"memlimit-death-spiral", "live-heap-growth"}},
		{"go-build-cmd-go.gctrace.log", "go1.26", nil, []string{"memlimit-death-spiral"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			d := Diagnose(&Input{Log: parseFile(t, tt.file), GoVersion: tt.goVersion})
			got := ids(d)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("missing %s; got %v", w, got)
				}
			}
			for _, n := range tt.not {
				if slices.Contains(got, n) {
					t.Errorf("unexpected %s; got %v", n, got)
				}
			}
			for _, f := range d.Findings {
				if f.Message == "" || f.Remedy == "" || f.Verify == "" || len(f.Evidence) == 0 || len(f.Where) == 0 {
					t.Errorf("%s: incomplete finding %+v", f.ID, f)
				}
				for _, e := range f.Evidence {
					if e.Source == "" {
						t.Errorf("%s: evidence %q has no source", f.ID, e.Label)
					}
				}
			}
		})
	}
}

// TestVersionAwareAdvice checks that advice changes across the Go versions
// where the runtime changed: the same evidence, different remedies.
func TestVersionAwareAdvice(t *testing.T) {
	l := parseFile(t, "10-etcd8472-journald-scvg-2P.log")
	remedy := func(v string) string {
		for _, f := range Diagnose(&Input{Log: l, GoVersion: v}).Findings {
			if f.ID == "stw-long" {
				return f.Remedy
			}
		}
		t.Fatalf("%s: no stw-long", v)
		return ""
	}
	if r := remedy("go1.9"); !strings.Contains(r, "Before Go 1.14") || !strings.Contains(r, "Go 1.25") {
		t.Errorf("go1.9 remedy lacks preemption and GOMAXPROCS advice: %s", r)
	}
	if r := remedy("go1.26"); strings.Contains(r, "Before Go 1.14") || strings.Contains(r, "automatic from Go 1.25") {
		t.Errorf("go1.26 remedy gives advice for old versions: %s", r)
	}
	if r := remedy("go1.6"); !strings.Contains(r, "Go ≥ 1.7") {
		t.Errorf("go1.6 remedy should say to upgrade to 1.7: %s", r)
	}

	seed := parseFile(t, "seed002-go110-4P.log")
	for _, tt := range []struct {
		v         string
		memlimit  bool
		noMemlimt bool
	}{{"go1.18", false, true}, {"go1.19", true, false}} {
		var r string
		for _, f := range Diagnose(&Input{Log: seed, GoVersion: tt.v}).Findings {
			if f.ID == "gc-cpu-high" {
				r = f.Remedy
			}
		}
		if got := strings.Contains(r, "GOMEMLIMIT"); got != tt.memlimit {
			t.Errorf("%s: GOMEMLIMIT advice = %v, want %v: %s", tt.v, got, tt.memlimit, r)
		}
	}
}

func TestMergeAcrossSegments(t *testing.T) {
	// The go build log holds 31 processes; one rule must yield one finding.
	d := Diagnose(&Input{Log: parseFile(t, "go-build-cmd-go.gctrace.log"), GoVersion: "go1.26"})
	seen := map[string]bool{}
	for _, f := range d.Findings {
		if seen[f.ID] {
			t.Errorf("rule %s reported twice", f.ID)
		}
		seen[f.ID] = true
		if f.Also+1 != len(f.Segments) {
			t.Errorf("%s: Also=%d but %d segments", f.ID, f.Also, len(f.Segments))
		}
	}
}

func TestRulesDocumented(t *testing.T) {
	if len(Rules()) < 10 {
		t.Fatalf("%d rules registered", len(Rules()))
	}
	for _, r := range Rules() {
		if _, ok := Lookup(r.ID); !ok {
			t.Errorf("Lookup(%q) failed", r.ID)
		}
		if strings.ToLower(r.ID) != r.ID || strings.Contains(r.ID, " ") {
			t.Errorf("rule ID %q is not lower-case kebab", r.ID)
		}
	}
}

// remedyOf returns the remedy of rule id in the diagnosis, or "".
func remedyOf(d *Diagnosis, id string) string {
	for _, f := range d.Findings {
		if f.ID == id {
			return f.Remedy
		}
	}
	return ""
}

func TestVersionBoundaries(t *testing.T) {
	// A process GCing at the minimum heap, 12 times a second.
	minHeap := gctraceLog(t, "minheap/fast.log")
	spiral := parseFile(t, "15-go58106-gomemlimit-death-spiral-3P.log")
	seed := parseFile(t, "seed002-go110-4P.log")
	tests := []struct {
		name, rule, version string
		log                 *gctrace.Log
		rss                 int64
		want, not           string
	}{
		{"min heap, no GOMEMLIMIT yet", "gc-min-heap", "go1.18", minHeap, 0, "has no GOMEMLIMIT", "do not use a heap ballast"},
		{"min heap, GOMEMLIMIT", "gc-min-heap", "go1.19", minHeap, 0, "do not use a heap ballast", "has no GOMEMLIMIT"},
		{"spiral before limits", "memlimit-death-spiral", "go1.18", spiral, 0, "very low GOGC", "Raise GOMEMLIMIT"},
		{"spiral with a limit", "memlimit-death-spiral", "go1.19.5", spiral, 0, "Raise GOMEMLIMIT", "very low GOGC"},
		{"RSS with MADV_FREE", "rss-over-heap", "go1.14", seed, 4 << 30, "madvdontneed=1", "set GOMEMLIMIT"},
		{"RSS with MADV_DONTNEED, no limit", "rss-over-heap", "go1.16", seed, 4 << 30, "Upgrading to Go ≥ 1.19", "madvdontneed"},
		{"RSS with GOMEMLIMIT", "rss-over-heap", "go1.21", seed, 4 << 30, "set GOMEMLIMIT", "madvdontneed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &Input{Log: tt.log, GoVersion: tt.version, PeakRSS: tt.rss}
			r := remedyOf(Diagnose(in), tt.rule)
			if r == "" {
				t.Fatalf("%s did not fire", tt.rule)
			}
			if !strings.Contains(r, tt.want) || strings.Contains(r, tt.not) {
				t.Errorf("remedy for %s should say %q and not %q:\n%s", tt.version, tt.want, tt.not, r)
			}
		})
	}
	// Without RSS evidence the RSS rule cannot fire at all.
	if r := remedyOf(Diagnose(&Input{Log: seed, GoVersion: "go1.21"}), "rss-over-heap"); r != "" {
		t.Errorf("rss-over-heap fired without RSS samples")
	}
}

func TestClassifyMaps(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{"m := make(map[string]int)", patMap},
		{"m := make(map[string]int, len(recs))", patOther},
		{"idx := make(map[int][]string, n)", patOther},
		{"m[k] = v", patMap},
		{"seen := map[string]bool{}", patMap},
	}
	for _, tt := range tests {
		s := &HeapSite{Text: tt.line}
		if got := classify(s); got != tt.want {
			t.Errorf("classify(%q) = %s, want %s", tt.line, got, tt.want)
		}
	}
}

func TestClassifyBoxing(t *testing.T) {
	boxedSite := escape.Site{Kind: escape.EscapesToHeap, Expr: "v", Message: "v escapes to heap",
		Chain: []escape.Step{{Text: "from any(v) (interface-converted)", Reason: "interface-converted"}}}
	s := &HeapSite{Text: "sink = any(v)", Escapes: []escape.Site{boxedSite}}
	if got := classify(s); got != patBoxing {
		t.Errorf("interface conversion classified %s", got)
	}
	s = &HeapSite{Text: "s = append(s, v)", Escapes: []escape.Site{boxedSite}}
	if got := classify(s); got != patAppend {
		t.Errorf("append with a boxed value classified %s, want the more specific %s", got, patAppend)
	}

	// A value (not a pointer) put in an interface, as Go 1.26 explains it
	// (testdata/heap/escape.txt): the reasons are spill and assign, and
	// the expression is the variable.
	step := func(reason string) escape.Step { return escape.Step{Reason: reason} }
	tests := []struct {
		text string
		esc  escape.Site
		want string
	}{
		{"sinkAny = v", escape.Site{Kind: escape.EscapesToHeap, Expr: "v", Chain: []escape.Step{step("spill"), step("assign")}}, patBoxing},
		{"keep(p.pt)", escape.Site{Kind: escape.EscapesToHeap, Expr: "p.pt", Chain: []escape.Step{step("spill"), step("call parameter")}}, patBoxing},
		{"sinkAny = any(v)", escape.Site{Kind: escape.EscapesToHeap, Expr: "any(v)", Chain: []escape.Step{step("spill"), step("assign")}}, patBoxing},
		{"sinkNode = &node{id: i}", escape.Site{Kind: escape.EscapesToHeap, Expr: "&node{...}", Chain: []escape.Step{step("spill"), step("assign")}}, patOther},
		{"sinkStr = string(key)", escape.Site{Kind: escape.EscapesToHeap, Expr: "string(key)", Chain: []escape.Step{step("spill"), step("assign")}}, patConversion},
		{"n := 0", escape.Site{Kind: escape.MovedToHeap, Expr: "n", Chain: []escape.Step{step("address-of")}}, patOther},
		{"attrs[k] = v", escape.Site{Kind: escape.EscapesToHeap, Expr: "v", Chain: []escape.Step{step("spill"), step("assign")}}, patMap},
	}
	for _, tt := range tests {
		s := &HeapSite{Text: tt.text, Escapes: []escape.Site{tt.esc}}
		if got := classify(s); got != tt.want {
			t.Errorf("classify(%q, %q escapes) = %s, want %s", tt.text, tt.esc.Expr, got, tt.want)
		}
	}
}

func TestSeverity(t *testing.T) {
	for _, s := range []Severity{Info, Warning, Critical} {
		p, err := ParseSeverity(strings.ToUpper(s.String()))
		if err != nil || p != s {
			t.Errorf("ParseSeverity(%q) = %v, %v", strings.ToUpper(s.String()), p, err)
		}
		if b, _ := s.MarshalText(); string(b) != s.String() {
			t.Errorf("%v marshals as %q", s, b)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity(fatal) succeeded")
	}
	if s := Severity(7).String(); s != "Severity(7)" {
		t.Errorf("Severity(7) = %q", s)
	}
}

func TestLocationString(t *testing.T) {
	tests := []struct {
		l    Location
		want string
	}{
		{Location{File: "a.log", Line: 3}, "a.log:3"},
		{Location{File: "a.log", Line: 3, EndLine: 9}, "a.log:3-9"},
		{Location{File: "a.log", Line: 3, EndLine: 3}, "a.log:3"},
	}
	for _, tt := range tests {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.l, got, tt.want)
		}
	}
}

// TestCatalogue checks that docs/rules.md, generated from Catalogue, lists
// every rule with each part of its documentation.
func TestCatalogue(t *testing.T) {
	c := Catalogue()
	for _, r := range Rules() {
		if !strings.Contains(c, "| ["+r.ID+"](#"+r.ID+") |") {
			t.Errorf("%s missing from the table", r.ID)
		}
		md := r.Markdown()
		if !strings.Contains(c, strings.TrimRight(md, "\n")) {
			t.Errorf("%s: section missing from the catalogue", r.ID)
		}
		for _, part := range []string{"## " + r.ID + "\n", "**Why it matters.**", "**How it is detected.**", "**What to do.**", "**How to verify.**"} {
			if !strings.Contains(md, part) {
				t.Errorf("%s: no %q", r.ID, part)
			}
		}
	}
}

func TestMaxSeverity(t *testing.T) {
	if _, ok := (&Diagnosis{}).MaxSeverity(); ok {
		t.Error("MaxSeverity of no findings reported one")
	}
	d := Diagnose(&Input{Log: parseFile(t, "seed002-go110-4P.log"), GoVersion: "go1.10"})
	if s, ok := d.MaxSeverity(); !ok || s != Warning {
		t.Errorf("seed002: MaxSeverity %v, %v; want warning", s, ok)
	}
	if ids := d.AtLeast(Critical); len(ids) != 0 {
		t.Errorf("seed002: AtLeast(critical) = %v; want none", ids)
	}
	warn := d.AtLeast(Warning)
	if len(warn) == 0 || len(warn) > len(d.AtLeast(Info)) {
		t.Errorf("seed002: AtLeast(warning) = %v, AtLeast(info) = %v", warn, d.AtLeast(Info))
	}
	if err := d.FailOn(Critical); err != nil {
		t.Errorf("seed002: FailOn(critical) = %v; want none", err)
	}
	if err := d.FailOn(Warning); err == nil || err.Error() != "findings at or above warning: "+strings.Join(warn, ", ") {
		t.Errorf("seed002: FailOn(warning) = %v; want the IDs %v", err, warn)
	}
}

// TestHeapSites checks the ranked sites a diagnosis keeps for the report:
// in rank order, with the source line and the pattern the rules used.
func TestHeapSites(t *testing.T) {
	sites := Diagnose(&Input{Heap: heapEvidence(t, "concat")}).HeapSites()
	if len(sites) == 0 {
		t.Fatal("no sites")
	}
	for i, s := range sites {
		if s.Rank != i+1 {
			t.Errorf("site %d has rank %d", i, s.Rank)
		}
	}
	if s := sites[0]; s.Pattern != patConcat || s.Text != `line += "field,"` {
		t.Errorf("top site %s:%d: pattern %s, text %q", s.File, s.Line, s.Pattern, s.Text)
	}
}
