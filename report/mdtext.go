package report

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// MarkdownText writes Markdown, such as a rule's documentation, as text
// for a terminal: headings underlined, bold and code spans without their
// markup (in bold and cyan with Color), paragraphs wrapped at the width,
// lists with bullets and code blocks indented as they are. Control
// characters are dropped, so the text cannot drive the terminal.
func MarkdownText(w io.Writer, md string, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	src := []byte(md)
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	m := &mdText{t: &textWriter{w: w, opt: opt}, src: src}
	m.blocks(doc, "", "")
	return m.t.err
}

type mdText struct {
	t       *textWriter
	src     []byte
	wrote   bool // a line was written
	pending bool // an empty line is due before the next one
}

// piece is a run of inline text in one style ("" plain).
type piece struct{ text, style string }

// blank separates blocks with one empty line, however many end at once.
func (m *mdText) blank() { m.pending = m.wrote }

// line writes one line.
func (m *mdText) line(s string) {
	if m.pending {
		m.t.printf("\n")
		m.pending = false
	}
	m.t.printf("%s\n", s)
	m.wrote = true
}

// blocks writes the block children of n; first is the prefix of the first
// line (a bullet), indent that of the others.
func (m *mdText) blocks(n ast.Node, first, indent string) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		m.block(c, first, indent)
		first = indent
	}
}

func (m *mdText) block(n ast.Node, first, indent string) {
	// Blocks stand apart, but for the text of a tight list's item.
	if _, tight := n.(*ast.TextBlock); !tight {
		m.blank()
		defer m.blank()
	}
	switch n := n.(type) {
	case *ast.Heading:
		title := plainText(m.inline(n))
		under := "-"
		if n.Level <= 2 {
			under = "="
		}
		m.line(first + m.t.style(ansiBold, title))
		m.line(indent + strings.Repeat(under, runeLen(title)))
	case *ast.Paragraph, *ast.TextBlock:
		m.wrap(first, indent, m.inline(n))
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			line := strings.TrimRight(mdClean(string(seg.Value(m.src))), "\n")
			m.line(first + "    " + line)
			first = indent
		}
	case *ast.List:
		num := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			bullet := "• "
			if n.IsOrdered() {
				bullet = strconv.Itoa(num) + ". "
				num++
			}
			pad := strings.Repeat(" ", runeLen(bullet))
			m.blocks(item, first+"  "+bullet, indent+"  "+pad)
			first = indent
		}
	case *ast.Blockquote:
		m.blocks(n, first+"│ ", indent+"│ ")
	case *ast.ThematicBreak:
		m.line(first + strings.Repeat("─", min(m.t.opt.Width-runeLen(first), 40)))
	case *ast.HTMLBlock:
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			m.line(first + strings.TrimRight(mdClean(string(seg.Value(m.src))), "\n"))
			first = indent
		}
	default:
		m.blocks(n, first, indent)
	}
}

// inline returns the inline content of a block as styled pieces; a hard
// line break is a piece "\n".
func (m *mdText) inline(n ast.Node) []piece {
	var out []piece
	var walk func(n ast.Node, style string)
	walk = func(n ast.Node, style string) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				out = append(out, piece{mdClean(string(c.Value(m.src))), style})
				switch {
				case c.HardLineBreak():
					out = append(out, piece{"\n", ""})
				case c.SoftLineBreak():
					out = append(out, piece{" ", style})
				}
			case *ast.String:
				out = append(out, piece{mdClean(string(c.Value)), style})
			case *ast.CodeSpan:
				var b bytes.Buffer
				for t := c.FirstChild(); t != nil; t = t.NextSibling() {
					if s, ok := t.(*ast.Text); ok {
						b.Write(s.Value(m.src))
					}
				}
				// A code span may run over lines: its line ends are spaces.
				out = append(out, piece{strings.ReplaceAll(mdClean(b.String()), "\n", " "), ansiCyan})
			case *ast.Emphasis:
				s := style
				if c.Level >= 2 {
					s = ansiBold
				}
				walk(c, s)
			case *ast.Link:
				walk(c, style)
				if dest := string(c.Destination); dest != "" && !strings.HasPrefix(dest, "#") {
					out = append(out, piece{" (" + mdClean(dest) + ")", style})
				}
			case *ast.AutoLink:
				out = append(out, piece{mdClean(string(c.URL(m.src))), style})
			case *ast.RawHTML:
				for i := 0; i < c.Segments.Len(); i++ {
					seg := c.Segments.At(i)
					out = append(out, piece{mdClean(string(seg.Value(m.src))), style})
				}
			default:
				walk(c, style)
			}
		}
	}
	walk(n, "")
	return out
}

// wrap writes pieces as lines of at most the width, breaking at spaces.
// A style runs on over the words that share it, and ends with each line.
func (m *mdText) wrap(first, indent string, pieces []piece) {
	var line strings.Builder
	line.WriteString(first)
	col, empty, open := runeLen(first), true, ""
	setStyle := func(s string) {
		if !m.t.opt.Color || s == open {
			return
		}
		if open != "" {
			line.WriteString(ansiReset)
		}
		line.WriteString(s)
		open = s
	}
	flush := func() {
		setStyle("")
		m.line(strings.TrimRight(line.String(), " "))
		line.Reset()
		line.WriteString(indent)
		col, empty = runeLen(indent), true
	}
	var word []piece
	wordLen := 0
	space := false
	emit := func() {
		if wordLen == 0 {
			return
		}
		if !empty && col+1+wordLen > m.t.opt.Width {
			flush()
		}
		if !empty && space {
			if len(word) > 0 && word[0].style != open {
				setStyle("")
			}
			line.WriteByte(' ')
			col++
		}
		for _, p := range word {
			setStyle(p.style)
			line.WriteString(p.text)
		}
		col += wordLen
		empty = false
		word, wordLen, space = nil, 0, false
	}
	for _, p := range pieces {
		if p.text == "\n" {
			emit()
			flush()
			continue
		}
		for i, part := range strings.Split(p.text, " ") {
			if i > 0 {
				emit()
				space = true
			}
			if part != "" {
				word = append(word, piece{part, p.style})
				wordLen += runeLen(part)
			}
		}
	}
	emit()
	if !empty {
		flush()
	}
}

// plainText joins pieces without their styles.
func plainText(ps []piece) string {
	var b strings.Builder
	for _, p := range ps {
		if p.text != "\n" {
			b.WriteString(p.text)
		}
	}
	return strings.TrimSpace(b.String())
}

// mdClean drops control characters but tabs and newlines.
func mdClean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return -1
		}
		return r
	}, s)
}
