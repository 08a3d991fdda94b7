package report

import (
	"strings"
	"testing"
)

// TestMarkdownText renders the Markdown of rule documentation for a
// terminal: no markup left, paragraphs wrapped, code kept as written, and
// no control sequence from the text.
func TestMarkdownText(t *testing.T) {
	tests := []struct {
		name, md string
		color    bool
		want     string
	}{
		{"heading and bold", "## rule-id\n\n**Title**  \nSeverity: info\n", false,
			"rule-id\n=======\n\nTitle\nSeverity: info\n"},
		{"code span and wrap", "Use `sync.Pool` for buffers that are allocated again and again in a loop.\n", false,
			"Use sync.Pool for buffers that are allocated\nagain and again in a loop.\n"},
		{"list and code block", "Flagged:\n\n- `a`, always;\n- b.\n\n```go\nfor {\n\tx()\n}\n```\n", false,
			"Flagged:\n\n  • a, always;\n  • b.\n\n    for {\n    \tx()\n    }\n"},
		{"link", "See [the docs](https://go.dev/doc/gc-guide).\n", false,
			"See the docs (https://go.dev/doc/gc-guide).\n"},
		{"styles", "**Why.** The `GOGC` knob.\n", true,
			ansiBold + "Why." + ansiReset + " The " + ansiCyan + "GOGC" + ansiReset + " knob.\n"},
		{"control sequences", "Text \x1b[2Jwith \x1b]0;title\x07escapes.\n", false,
			"Text [2Jwith ]0;titleescapes.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := MarkdownText(&b, tt.md, TextOptions{Width: 48, Color: tt.color}); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}

// TestCommandWrap checks that a printed command wraps into lines that a
// shell reads as the one command: a backslash ends each broken line, and
// neither a quoted word nor a comment is broken.
func TestCommandWrap(t *testing.T) {
	cmd := "gcdoctor run --out 'my evidence-after' -- ./server -addr :8080; gcdoctor diff 'my evidence' 'my evidence-after'  # load it as before, then stop it with Ctrl-C"
	var b strings.Builder
	tw := &textWriter{w: &b, opt: TextOptions{Width: 40}}
	tw.command("  $ ", "    ", cmd)
	want := `  $ gcdoctor run --out \
    'my evidence-after' -- ./server \
    -addr :8080; gcdoctor diff \
    'my evidence' 'my evidence-after' \
    # load it as before, then stop it with Ctrl-C
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
