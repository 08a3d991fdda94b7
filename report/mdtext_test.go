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
