package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/gctrace"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/path, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	path = filepath.Join("testdata", path)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./report -update writes it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (go test ./report -run %s -update to accept):\n--- want\n%s\n--- got\n%s", path, t.Name(), want, got)
	}
}

var formatCases = []struct {
	name string
	fx   fixture
}{
	{"demo-bundle", demoBundle},
	{"mixed", fullEvidence},
	{"hostile", hostileAll},
	{"gctrace-only", fixture{log: "go1.21-alloc.log"}},
	{"pre15-profile", fixture{log: "go1.4.3-alloc.log", profile: "concat.pprof"}},
	{"trace-only", fixture{trace: "small.trace"}},
	{"multi-process", fixture{log: "toolchain-go-vet-std.log"}},
	{"greentea", fixture{log: "go1.26-greentea-json.log"}},
	{"nogreentea", fixture{log: "go1.26-nogreentea-json.log"}},
}

func TestMarkdownGolden(t *testing.T) {
	for _, tt := range formatCases {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Markdown(&buf, tt.fx.diagnosis(t), "test"); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("markdown", tt.name+".md"), buf.Bytes())
		})
	}
}

// TestMarkdownParses reads every report back with a GFM parser: no raw
// HTML anywhere, every table row as wide as its header, and the hostile
// names back as the text they were.
func TestMarkdownParses(t *testing.T) {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, tt := range formatCases {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Markdown(&buf, tt.fx.diagnosis(t), "test"); err != nil {
				t.Fatal(err)
			}
			src := buf.Bytes()
			doc := md.Parser().Parse(text.NewReader(src))
			headings := 0
			err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if !entering {
					return ast.WalkContinue, nil
				}
				switch n := n.(type) {
				case *ast.RawHTML:
					raw := string(n.Segments.Value(src))
					// The footer's <sub> is the one tag the renderer writes.
					if raw != "<sub>" && raw != "</sub>" {
						t.Errorf("raw HTML %q", raw)
					}
				case *ast.HTMLBlock:
					t.Errorf("HTML block at %q", n.Lines().Value(src))
				case *ast.Heading:
					headings++
				case *extast.Table:
					want := n.FirstChild().ChildCount()
					for r := n.FirstChild().NextSibling(); r != nil; r = r.NextSibling() {
						if r.ChildCount() != want {
							t.Errorf("table row of %d cells under a header of %d", r.ChildCount(), want)
						}
					}
				}
				return ast.WalkContinue, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !tt.fx.hostile {
				return
			}
			// Render as GitHub would (raw HTML would be dropped, so it was
			// caught above) and read the text back.
			var out bytes.Buffer
			if err := md.Convert(src, &out); err != nil {
				t.Fatal(err)
			}
			plain := parsePage(t, out.Bytes()).text
			for _, s := range []string{hostileFunc, hostileGroup, hostileLog, hostileLint} {
				if !strings.Contains(plain, s) {
					t.Errorf("the text lacks %q", s)
				}
			}
			if headings < 4 {
				t.Errorf("%d headings: the hostile text broke the structure", headings)
			}
		})
	}
}

func TestMDEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text 1.5 MB", "plain text 1.5 MB"},
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"a|b", `a\|b`},
		{"x`y`z", "x\\`y\\`z"},
		{"*[link](http://x)*", `\*\[link\](http://x)\*`},
		{"line\nbreak", "line break"},
		{`back\slash`, `back\\slash`},
		{"a & b", "a &amp; b"},
	}
	for _, tt := range tests {
		if got := mdEscape(tt.in); got != tt.want {
			t.Errorf("mdEscape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMDLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"# heading", `\# heading`},
		{"- item", `\- item`},
		{"12. item", `12\. item`},
		{"3) item", `3\) item`},
		{"    code", "code"},
		{"1.5 MB", "1.5 MB"},
		{"text", "text"},
	}
	for _, tt := range tests {
		if got := mdLine(tt.in); got != tt.want {
			t.Errorf("mdLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMDCode(t *testing.T) {
	tests := []struct {
		in    string
		table bool
		want  string
	}{
		{"go test", false, "`go test`"},
		{"a`b", false, "``a`b``"},
		{"`x", false, "`` `x ``"},
		{"a|b", true, "`a\\|b`"},
		{"a|b", false, "`a|b`"},
	}
	for _, tt := range tests {
		if got := mdCode(tt.in, tt.table); got != tt.want {
			t.Errorf("mdCode(%q, %v) = %q, want %q", tt.in, tt.table, got, tt.want)
		}
	}
}

func TestSpans(t *testing.T) {
	tests := []struct {
		in   string
		want []span
	}{
		{"run `go test` now", []span{{"run ", false}, {"go test", true}, {" now", false}}},
		{"odd ` tick", []span{{"odd ` tick", false}}},
		{"`a`", []span{{"a", true}}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := spans(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("spans(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestBuckets(t *testing.T) {
	tests := []struct {
		n, max int
		want   int // buckets; 0 for none (no downsampling)
	}{
		{10, 2000, 0},
		{2000, 2000, 0},
		{2001, 2000, 1001},
		{57, 10, 10},
		{100000, 2000, 2000},
	}
	for _, tt := range tests {
		bs := buckets(tt.n, tt.max)
		if len(bs) != tt.want {
			t.Errorf("buckets(%d, %d): %d, want %d", tt.n, tt.max, len(bs), tt.want)
		}
		// The buckets must cover every item once, in order.
		next := 0
		for _, b := range bs {
			if b[0] != next || b[1] <= b[0] {
				t.Fatalf("buckets(%d, %d): %v does not continue at %d", tt.n, tt.max, b, next)
			}
			next = b[1]
		}
		if bs != nil && next != tt.n {
			t.Errorf("buckets(%d, %d) end at %d", tt.n, tt.max, next)
		}
	}
}

var (
	reCSP   = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`)
	reStyle = regexp.MustCompile(`(?s)<style>(.*?)</style>`)
)

// parsedPage is an HTML report as a browser's tokenizer reads it.
type parsedPage struct {
	charts  []string          // figure ids without "chart-", in order
	svg     map[string][]byte // chart id to its decoded SVG
	missing []string          // the notes on missing evidence
	text    string            // all text, entities decoded
	figures int
}

func parsePage(t *testing.T, page []byte) parsedPage {
	t.Helper()
	p := parsedPage{svg: map[string][]byte{}}
	var text strings.Builder
	figure, inMissing := "", false
	z := html.NewTokenizer(bytes.NewReader(page))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		tok := z.Token()
		attr := func(k string) string {
			for _, a := range tok.Attr {
				if a.Key == k {
					return a.Val
				}
			}
			return ""
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			switch tok.Data {
			case "figure":
				p.figures++
				figure = strings.TrimPrefix(attr("id"), "chart-")
			case "img":
				const prefix = "data:image/svg+xml;base64,"
				src := attr("src")
				if figure == "" || !strings.HasPrefix(src, prefix) {
					t.Errorf("image outside a figure or not an embedded SVG: %.60q", src)
					continue
				}
				svg, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, prefix))
				if err != nil {
					t.Fatalf("chart %s: %v", figure, err)
				}
				p.charts = append(p.charts, figure)
				p.svg[figure] = svg
				figure = ""
			case "p":
				if attr("class") == "missing" {
					inMissing = true
				}
			}
		case html.EndTagToken:
			if tok.Data == "p" {
				inMissing = false
			}
		case html.TextToken:
			text.WriteString(tok.Data)
			if inMissing {
				p.missing = append(p.missing, tok.Data)
			}
		}
	}
	p.text = text.String()
	return p
}

// TestHTMLStructure checks the page without a browser: which charts it
// draws for which evidence, the notes for what it cannot draw, valid SVG
// in every chart, the hostile names escaped, and a CSP that admits the
// page's one style sheet and nothing else.
func TestHTMLStructure(t *testing.T) {
	tests := []struct {
		name        string
		fx          fixture
		opt         HTMLOptions
		wantCharts  []string
		wantMissing []string // substrings of the notes, in order
		wantText    []string
	}{
		{
			name:       "a bundle of one run",
			fx:         demoBundle,
			wantCharts: []string{"heap", "pauses", "pause-histogram", "gc-cpu", "sites", "trace-pauses", "trace-pause-histogram", "mmu", "goroutines"},
			wantText:   []string{"What to do first", "Findings (", "demo-bundle/gctrace.log"},
		},
		{
			name:       "all evidence, mixed",
			fx:         fullEvidence,
			wantCharts: []string{"heap", "pauses", "pause-histogram", "gc-cpu", "sites", "trace-pauses", "trace-pause-histogram", "mmu", "goroutines"},
			wantText:   []string{"main.bigbufHandler"},
		},
		{
			name:       "downsampled",
			fx:         fullEvidence,
			opt:        HTMLOptions{MaxPoints: 10},
			wantCharts: []string{"heap", "pauses", "pause-histogram", "gc-cpu", "sites", "trace-pauses", "trace-pause-histogram", "mmu", "goroutines"},
			wantText:   []string{"The 57 cycles are drawn as 10 points, each the largest of 6 consecutive cycles", "The 27 pauses are drawn as 9 points"},
		},
		{
			name:        "cycles not kept",
			fx:          fixture{log: "go1.26-alloc.log", profile: "bigbuf.pprof"},
			wantCharts:  []string{"sites"},
			wantMissing: []string{"No heap-over-time chart from gctrace: the gctrace cycles were not kept", "No GC pause charts", "No GC CPU chart", "No stop-the-world pause charts from a trace", "No MMU chart", "No goroutine group chart"},
		},
		{
			name:        "nothing but a trace",
			fx:          fixture{trace: "small.trace"},
			wantCharts:  []string{"heap", "trace-pauses", "trace-pause-histogram", "mmu", "goroutines"},
			wantMissing: []string{"No heap-over-time chart from gctrace: there is no gctrace log in the evidence", "No GC pause charts", "No GC CPU chart", "No allocation site chart: there is no heap or allocs profile"},
			wantText:    []string{"the execution trace's is below", "From the execution trace: the size of the heap objects"},
		},
		{
			name:        "no timestamps",
			fx:          fixture{log: "go1.4.3-alloc.log", keepCycles: true},
			wantCharts:  []string{"heap", "pauses", "pause-histogram"},
			wantMissing: []string{"No GC CPU chart: this log format has neither timestamps", "No allocation site chart", "No stop-the-world", "No MMU chart", "No goroutine group chart"},
		},
		{
			name:        "many processes",
			fx:          fixture{log: "toolchain-go-vet-std.log", keepCycles: true},
			wantCharts:  []string{"heap", "pauses", "pause-histogram", "gc-cpu"},
			wantMissing: []string{"No allocation site chart", "No stop-the-world pause charts from a trace", "No MMU chart", "No goroutine group chart"},
			wantText:    []string{"the one with the most GC work", "processes in the log"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.fx.diagnosis(t)
			var buf bytes.Buffer
			if err := HTML(&buf, d, tt.opt); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			pp := parsePage(t, buf.Bytes())
			for id, svg := range pp.svg {
				checkSVG(t, id, svg)
			}
			if !slices.Equal(pp.charts, tt.wantCharts) {
				t.Errorf("charts %v, want %v", pp.charts, tt.wantCharts)
			}
			if pp.figures != len(pp.charts) {
				t.Errorf("%d figures, %d of them with a chart", pp.figures, len(pp.charts))
			}
			if len(pp.missing) != len(tt.wantMissing) {
				t.Errorf("notes on missing evidence %q, want %d", pp.missing, len(tt.wantMissing))
			} else {
				for i, w := range tt.wantMissing {
					if !strings.Contains(pp.missing[i], w) {
						t.Errorf("note %d = %q, want it to say %q", i, pp.missing[i], w)
					}
				}
			}
			for _, w := range tt.wantText {
				if !strings.Contains(pp.text, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			checkCSP(t, page)
			if strings.Contains(page, "<script") || strings.Contains(page, "http://") || strings.Contains(page, "https://") {
				t.Error("the page holds a script or a link out")
			}
			// Deterministic: the same evidence makes the same page.
			var again bytes.Buffer
			if err := HTML(&again, tt.fx.diagnosis(t), tt.opt); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), again.Bytes()) {
				t.Error("two renderings differ")
			}
		})
	}
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&#34;", `"`, "&#39;", "'", "&quot;", `"`).Replace(s)
}

// checkSVG parses a chart as XML: gonum must have escaped every label.
func checkSVG(t *testing.T, id string, svg []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("chart %s is not well-formed XML: %v", id, err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
			}
			if el.Name.Local == "script" || el.Name.Local == "foreignObject" {
				t.Errorf("chart %s holds a <%s>", id, el.Name.Local)
			}
		}
	}
	if root != "svg" {
		t.Errorf("chart %s: root element %q", id, root)
	}
}

// checkCSP checks that the page's policy forbids everything but data:
// images and the style sheet whose hash it names.
func checkCSP(t *testing.T, page string) {
	t.Helper()
	m := reCSP.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no Content-Security-Policy")
	}
	csp := htmlUnescape(m[1])
	for _, want := range []string{"default-src 'none'", "img-src data:", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	styles := reStyle.FindAllStringSubmatch(page, -1)
	if len(styles) != 1 {
		t.Fatalf("%d style elements", len(styles))
	}
	sum := sha256.Sum256([]byte(styles[0][1]))
	if want := "style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, want) {
		t.Errorf("CSP %q does not admit the style sheet (%s)", csp, want)
	}
	if strings.Contains(page, " style=") {
		t.Error("a style attribute, which the CSP blocks")
	}
	if i, j := strings.Index(page, "Content-Security-Policy"), strings.Index(page, "<style>"); i < 0 || i > j {
		t.Error("the policy must come before what it governs")
	}
}

// TestHTMLHostile plants hostile names in every kind of evidence: they must
// reach the page as text, and no element of theirs.
func TestHTMLHostile(t *testing.T) {
	d := hostileAll.diagnosis(t)
	var buf bytes.Buffer
	if err := HTML(&buf, d, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	// Tokenize the page as a browser would: the hostile names must be
	// text or attribute values, never elements or event handlers.
	allowed := map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
		"header": true, "h1": true, "h2": true, "h3": true, "p": true, "nav": true, "a": true, "main": true, "section": true,
		"ol": true, "ul": true, "li": true, "strong": true, "br": true, "span": true, "article": true, "code": true,
		"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "dl": true, "dt": true, "dd": true,
		"figure": true, "img": true, "figcaption": true, "footer": true}
	var text strings.Builder
	z := html.NewTokenizer(bytes.NewReader(buf.Bytes()))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			if !allowed[tok.Data] {
				t.Errorf("element <%s> the template does not write", tok.Data)
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(a.Key, "on") {
					t.Errorf("event handler %s=%q", a.Key, a.Val)
				}
				if tok.Data == "img" && a.Key == "src" && !strings.HasPrefix(a.Val, "data:image/svg+xml;base64,") {
					t.Errorf("image from %q", a.Val)
				}
			}
		case html.TextToken:
			text.WriteString(tok.Data)
		}
	}
	for _, s := range []string{hostileFunc, hostileGroup, hostileLog, hostileLint} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("page lacks %q as text", s)
		}
	}
	// The sites chart labels the bars with the planted function: gonum
	// must have escaped it inside the SVG.
	svg := parsePage(t, buf.Bytes()).svg["sites"]
	if svg == nil {
		t.Fatal("no sites chart")
	}
	if !bytes.Contains(svg, []byte("main.&lt;script&gt;alert(1)&lt;/script&gt;")) || bytes.Contains(svg, []byte("<script")) {
		t.Errorf("the planted name is not escaped in the SVG")
	}
	checkSVG(t, "sites", svg)
}

// sarifDoc is the part of a SARIF log the tests read.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID               string `json:"id"`
					ShortDescription struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

func TestSARIF(t *testing.T) {
	// The profiles were recorded in a checkout at /work/main: that is the
	// root their absolute paths are relative to, wherever the test runs.
	const root = "/work/main"
	all := func(string) bool { return true }
	tests := []struct {
		name  string
		fx    fixture
		paths sarifPaths
		want  []string // ruleId@uri:line
	}{
		{
			name:  "profile sites",
			fx:    fullEvidence,
			paths: sarifPaths{root: root, exists: all},
			// The other sites carry less than 1% of the bytes each.
			want: []string{"heap-large-buffer@heapprof/testdata/scenarios/bigbuf.go:13"},
		},
		{
			name:  "hostile file name is percent-encoded",
			fx:    hostileAll,
			paths: sarifPaths{root: root, exists: all},
			want:  []string{"heap-large-buffer@heapprof/testdata/scenarios/big%7Cbuf%60x%60.go:13"},
		},
		{
			name:  "outside the checkout",
			fx:    fullEvidence,
			paths: sarifPaths{root: "/elsewhere", exists: all},
		},
		{
			name: "only files the checkout has",
			fx:   fullEvidence,
			paths: sarifPaths{root: root, exists: func(rel string) bool {
				return rel == "heapprof/testdata/scenarios/main.go"
			}},
		},
		{
			// encoding/json's benchmarks: sites with no finding, each
			// of at least 1% of the bytes, become notes.
			name:  "allocation sites without a finding",
			fx:    fixture{profile: "json-bench.pprof"},
			paths: sarifPaths{root: "/usr/local/go/src", exists: all},
			want: []string{
				"alloc-site@encoding/json/encode.go:213", "alloc-site@encoding/json/decode.go:106",
				"alloc-site@encoding/json/encode.go:1307", "alloc-site@encoding/json/encode.go:1304",
				"alloc-site@encoding/json/encode.go:1225", "alloc-site@internal/sync/hashtriemap.go:550",
				"alloc-site@internal/sync/hashtriemap.go:572", "alloc-site@encoding/json/encode.go:1301",
				"alloc-site@encoding/json/encode.go:1112", "alloc-site@encoding/json/encode.go:1336",
			},
		},
		{
			name:  "log lines are not source",
			fx:    fixture{log: "go1.26-alloc.log", trace: "small.trace"},
			paths: sarifPaths{root: root, exists: all},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := sarifLog(tt.fx.diagnosis(t), "test", tt.paths).Write(&buf); err != nil {
				t.Fatal(err)
			}
			var doc sarifDoc
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, buf.Bytes())
			}
			if doc.Version != "2.1.0" || !strings.Contains(doc.Schema, "sarif-2.1.0") || len(doc.Runs) != 1 {
				t.Fatalf("not a SARIF 2.1.0 log of one run: %s", buf.Bytes())
			}
			run := doc.Runs[0]
			if run.Tool.Driver.Name != "gcdoctor" || len(run.Tool.Driver.Rules) != len(diagnose.Rules())+1 {
				t.Errorf("driver %q with %d rules", run.Tool.Driver.Name, len(run.Tool.Driver.Rules))
			}
			var got []string
			for _, r := range run.Results {
				if r.RuleIndex < 0 || r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
					t.Errorf("result of %s points at rule %d", r.RuleID, r.RuleIndex)
				}
				if r.Message.Text == "" || !slices.Contains([]string{"error", "warning", "note"}, r.Level) || len(r.Locations) == 0 {
					t.Errorf("incomplete result %+v", r)
				}
				for _, l := range r.Locations {
					uri := l.PhysicalLocation.ArtifactLocation.URI
					if strings.HasPrefix(uri, "/") || strings.Contains(uri, "://") || strings.HasPrefix(uri, "..") || l.PhysicalLocation.Region.StartLine < 1 {
						t.Errorf("location %s:%d is not a relative source position", uri, l.PhysicalLocation.Region.StartLine)
					}
				}
				l := r.Locations[0].PhysicalLocation
				got = append(got, r.RuleID+"@"+l.ArtifactLocation.URI+":"+strconv.Itoa(l.Region.StartLine))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("results\n%q\nwant\n%q", got, tt.want)
			}
			if doc.Runs[0].Results == nil {
				t.Error("results must be [] rather than absent")
			}
		})
	}
}

// TestMMUChartShortTrace: a trace too short for a second MMU window has
// no chart, which would plot one point on a log scale, and says why.
func TestMMUChartShortTrace(t *testing.T) {
	for _, tt := range []struct {
		points []exectrace.MMUPoint
		chart  bool
		want   string
	}{
		{[]exectrace.MMUPoint{{WindowMS: 1, Util: 0.5, Bounded: 0.5}}, false, "No MMU chart: the trace is too short for more than one of its windows."},
		{[]exectrace.MMUPoint{{WindowMS: 1, Util: 0.5, Bounded: 0.5}, {WindowMS: 2, Util: 0.6, Bounded: 0.6}}, true, ""},
	} {
		d := &diagnose.Diagnosis{Log: &gctrace.Log{}, Trace: &diagnose.TraceEvidence{Result: &exectrace.Result{MMU: exectrace.MMU{Points: tt.points}}}}
		charts, missing, err := traceCharts(d, 100)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(charts, func(c *chart) bool { return strings.HasPrefix(c.Title, "Minimum mutator") })
		if got != tt.chart || (tt.want != "" && !slices.Contains(missing, tt.want)) {
			t.Errorf("%d points: chart %v, missing %q; want chart %v and %q", len(tt.points), got, missing, tt.chart, tt.want)
		}
	}
}
