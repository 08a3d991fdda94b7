package escape

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Kind is the compiler's decision about one value.
type Kind int

// The decisions escape analysis reports.
const (
	KindUnknown     Kind = iota
	MovedToHeap          // a variable lives on the heap ("moved to heap: x")
	EscapesToHeap        // an allocation (new, make, &T{}, closure, interface conversion) goes to the heap
	TooLarge             // heap allocated because it is too large for the stack (10 MB for variables, 64 KB for implicit allocations)
	NonConstantSize      // make with a size unknown at compile time (toolchains before Go 1.25 always heap allocated these)
	LeakingParam         // a parameter's value flows to the heap or to a result ("leaking param: p")
	DoesNotEscape        // stays on the stack
)

var kindNames = [...]string{
	KindUnknown:     "unknown",
	MovedToHeap:     "moved to heap",
	EscapesToHeap:   "escapes to heap",
	TooLarge:        "too large for stack",
	NonConstantSize: "non-constant size",
	LeakingParam:    "leaking param",
	DoesNotEscape:   "does not escape",
}

// String returns the phrase the compiler uses, such as "moved to heap".
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Heap reports whether the decision puts an allocation on the heap.
func (k Kind) Heap() bool {
	return k == MovedToHeap || k == EscapesToHeap || k == TooLarge || k == NonConstantSize
}

// Step is one line of the compiler's explanation of a decision.
type Step struct {
	File   string // where the step happens; the site's position for "flow:" lines
	Line   int    // 1-based
	Column int    // 1-based, in bytes
	// Text is the explanation without position, such as
	// "flow: ~r0 ← &x:" or "from return &x (return)".
	Text string
	// Reason is the parenthesized reason of a "from" step, such as
	// "return", "address-of", "captured by a closure", "interface-converted",
	// "too large for stack"; empty for "flow:" steps.
	Reason string
}

// Site is one escape analysis decision.
type Site struct {
	Package  string // import path, from the "# path" header the go command prints; may be empty
	Function string // enclosing function when the explanation names it
	File     string // absolute when the compiler ran in a known directory
	Line     int    // 1-based
	Column   int    // 1-based, in bytes
	Kind     Kind
	Expr     string // the variable or expression, as the compiler prints it: "x", "make([]byte, n)"
	Message  string // the compiler's whole message
	Chain    []Step // the explanation, in order; empty when the compiler gave none
}

// Pos returns "file:line:column".
func (s Site) Pos() string { return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Column) }

// Reasons returns the distinct reasons along the chain, in order, such as
// ["address-of", "return"].
func (s Site) Reasons() []string {
	var rs []string
	for _, st := range s.Chain {
		if st.Reason != "" && !slices.Contains(rs, st.Reason) {
			rs = append(rs, st.Reason)
		}
	}
	return rs
}

// Report holds the decisions for a set of packages, indexed by position.
type Report struct {
	Sites []Site // in output order
	// Skipped counts lines that were neither a decision nor part of an
	// explanation: inlining notes, compile errors, odd lines.
	Skipped int

	byLine map[int][]int // line → indexes into Sites
}

// At returns the heap allocation sites (see Kind.Heap) on the given line
// of file. file may be absolute, or relative (to a module root, say): a
// relative name matches every site whose path ends in it at a path
// element boundary.
func (r *Report) At(file string, line int) []Site {
	if r.byLine == nil {
		r.index()
	}
	file = filepath.ToSlash(filepath.Clean(file))
	var out []Site
	for _, i := range r.byLine[line] {
		s := r.Sites[i]
		if s.Kind.Heap() && sameFile(filepath.ToSlash(s.File), file) {
			out = append(out, s)
		}
	}
	return out
}

// Heap returns the sites that allocate on the heap.
func (r *Report) Heap() []Site {
	var out []Site
	for _, s := range r.Sites {
		if s.Kind.Heap() {
			out = append(out, s)
		}
	}
	return out
}

func (r *Report) index() {
	r.byLine = make(map[int][]int)
	for i, s := range r.Sites {
		r.byLine[s.Line] = append(r.byLine[s.Line], i)
	}
}

func sameFile(have, want string) bool {
	if have == want {
		return true
	}
	if filepath.IsAbs(want) && filepath.IsAbs(have) {
		// The same source in two checkouts: a profile recorded by a
		// build elsewhere (CI, another machine) names the file under
		// that build's root. The directory and file name must agree.
		return lastElems(have, 2) == lastElems(want, 2) && strings.Count(have, "/") >= 2
	}
	a, b := have, want
	if len(a) < len(b) {
		a, b = b, a
	}
	b = strings.TrimPrefix(b, "./")
	return strings.HasSuffix(a, "/"+b)
}

// lastElems returns the last n elements of a slash-separated path.
func lastElems(p string, n int) string {
	i := len(p)
	for ; n > 0 && i > 0; n-- {
		i = strings.LastIndexByte(p[:i], '/')
		if i < 0 {
			return p
		}
	}
	return p[i+1:]
}

// Analyze builds the packages matching patterns in module directory dir
// with -gcflags=PATTERN=-m=2 for each pattern, so that only the requested
// packages are analyzed, and parses the compiler's report. The go command
// replays the report from its build cache, so repeated analyses are cheap.
// Cancelling ctx stops the build.
func Analyze(ctx context.Context, dir string, patterns []string) (*Report, error) {
	if len(patterns) == 0 {
		return nil, errors.New("escape: no packages")
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("escape: %v", err)
	}
	// Build everything and write nothing: the go command accepts the null
	// device as output for any number of packages, main or not.
	args := []string{"build", "-o", os.DevNull}
	for _, p := range patterns {
		args = append(args, "-gcflags="+p+"=-m=2")
	}
	args = append(args, "--")
	args = append(args, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = absDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("escape: go build %s: %v", strings.Join(patterns, " "), ctx.Err())
	}
	rep, _ := Parse(bytes.NewReader(stderr.Bytes()), absDir)
	if runErr != nil {
		return rep, fmt.Errorf("escape: go build %s: %v\n%s", strings.Join(patterns, " "), runErr, lastLines(stderr.String(), 20))
	}
	return rep, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var kept []string
	for _, l := range lines {
		// Compile errors are what the user needs; skip the analysis.
		if _, _, _, msg, ok := splitPos(l); ok && (strings.HasPrefix(msg, " ") || isDecisionNoise(msg)) {
			continue
		}
		kept = append(kept, l)
	}
	if len(kept) > n {
		kept = kept[len(kept)-n:]
	}
	return strings.Join(kept, "\n")
}

func isDecisionNoise(msg string) bool {
	return strings.Contains(msg, "escape") || strings.Contains(msg, "inlin") || strings.Contains(msg, "leak") ||
		strings.HasPrefix(msg, "moved to heap")
}

// Parse reads the output of `go build -gcflags=-m=2` (or -m) from r.
// Relative file names are resolved against dir, the directory the go
// command ran in; with dir empty they stay as printed. Lines it does not
// understand are counted in Report.Skipped and never stop it; the error is
// only for a failing reader.
func Parse(r io.Reader, dir string) (*Report, error) {
	rep := &Report{}
	pkg := ""
	// pending holds explanations waiting for their decision line, by
	// position and expression.
	type expl struct {
		fn    string
		chain []Step
	}
	pending := make(map[string]*expl)
	var cur *expl // explanation receiving indented lines
	var curPos string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(line, "# ") {
			pkg = strings.TrimSpace(line[2:])
			pending = make(map[string]*expl)
			cur = nil
			continue
		}
		file, ln, col, msg, ok := splitPos(line)
		if !ok {
			rep.Skipped++
			continue
		}
		if dir != "" && !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		pos := file + ":" + strconv.Itoa(ln) + ":" + strconv.Itoa(col)
		if strings.HasPrefix(msg, " ") {
			if cur == nil || curPos != pos {
				rep.Skipped++
				continue
			}
			cur.chain = append(cur.chain, parseStep(strings.TrimSpace(msg), file, ln, col, dir))
			continue
		}
		cur = nil
		// Explanation headers end in a colon:
		//   x escapes to heap in F:
		//   parameter p leaks to ~r0 for F with derefs=0:
		if strings.HasSuffix(msg, ":") {
			body := strings.TrimSuffix(msg, ":")
			var expr, fn string
			if e, f, ok := cutLast(body, " escapes to heap in "); ok {
				expr, fn = e, f
			} else if strings.HasPrefix(body, "parameter ") {
				rest := strings.TrimPrefix(body, "parameter ")
				e, tail, _ := strings.Cut(rest, " leaks to ")
				expr = "param " + e
				if _, f, ok := cutLast(tail, " for "); ok {
					fn, _, _ = strings.Cut(f, " with ")
				}
			} else {
				rep.Skipped++
				continue
			}
			cur = &expl{fn: fn}
			curPos = pos
			// A value can be explained more than once (for each flow
			// that forces it); keep all the steps.
			if old := pending[pos+"\x00"+expr]; old != nil {
				old.chain = append(old.chain, cur.chain...)
				cur = old
			} else {
				pending[pos+"\x00"+expr] = cur
			}
			continue
		}
		kind, expr := classify(msg)
		if kind == KindUnknown {
			rep.Skipped++
			continue
		}
		s := Site{Package: pkg, File: file, Line: ln, Column: col, Kind: kind, Expr: expr, Message: msg}
		key := expr
		if kind == LeakingParam {
			key = "param " + expr
		}
		if e := pending[pos+"\x00"+key]; e != nil {
			s.Function, s.Chain = e.fn, e.chain
			delete(pending, pos+"\x00"+key)
		}
		for _, st := range s.Chain {
			switch {
			case st.Reason == "too large for stack" && (kind == MovedToHeap || kind == EscapesToHeap):
				s.Kind = TooLarge
			case st.Reason == "non-constant size" && kind == EscapesToHeap:
				s.Kind = NonConstantSize
			}
		}
		rep.Sites = append(rep.Sites, s)
	}
	if err := sc.Err(); err != nil {
		return rep, fmt.Errorf("escape: %v", err)
	}
	return rep, nil
}

// classify recognizes a decision line.
func classify(msg string) (Kind, string) {
	switch {
	case strings.HasPrefix(msg, "moved to heap: "):
		return MovedToHeap, strings.TrimPrefix(msg, "moved to heap: ")
	case strings.HasPrefix(msg, "leaking param content: "):
		return LeakingParam, firstField(strings.TrimPrefix(msg, "leaking param content: "))
	case strings.HasPrefix(msg, "leaking param: "):
		return LeakingParam, firstField(strings.TrimPrefix(msg, "leaking param: "))
	case strings.HasSuffix(msg, " with non-constant size escapes to heap"):
		return NonConstantSize, strings.TrimSuffix(msg, " with non-constant size escapes to heap")
	case strings.HasSuffix(msg, " escapes to heap"):
		return EscapesToHeap, strings.TrimSuffix(msg, " escapes to heap")
	case strings.HasSuffix(msg, " does not escape"):
		return DoesNotEscape, strings.TrimSuffix(msg, " does not escape")
	case strings.HasSuffix(msg, " does not escape, mutate, or call"),
		strings.HasSuffix(msg, " does not escape, mutate"):
		e, _, _ := strings.Cut(msg, " does not escape")
		return DoesNotEscape, e
	}
	return KindUnknown, ""
}

func firstField(s string) string {
	f, _, _ := strings.Cut(s, " ")
	return f
}

// parseStep splits "from return &x (return) at f.go:7:2" into its text,
// reason and position.
func parseStep(text, file string, line, col int, dir string) Step {
	st := Step{File: file, Line: line, Column: col, Text: text}
	if !strings.HasPrefix(text, "from ") {
		return st
	}
	if body, at, ok := cutLast(text, " at "); ok {
		if f, l, c, ok := splitFileLineCol(at); ok {
			if dir != "" && !filepath.IsAbs(f) {
				f = filepath.Join(dir, f)
			}
			st.File, st.Line, st.Column, st.Text = f, l, c, body
		}
	}
	if strings.HasSuffix(st.Text, ")") {
		if i := matchingParen(st.Text); i > 0 {
			st.Reason = st.Text[i+1 : len(st.Text)-1]
		}
	}
	return st
}

// matchingParen returns the index of the "(" matching the final ")".
func matchingParen(s string) int {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitPos splits "file.go:12:5: message". File names may contain colons
// (Windows drives), so the search is for ".go:LINE:COL: ".
func splitPos(s string) (file string, line, col int, msg string, ok bool) {
	i := strings.Index(s, ".go:")
	for i >= 0 {
		rest := s[i+4:]
		l, n := leadingInt(rest)
		if n > 0 && n < len(rest) && rest[n] == ':' {
			c, m := leadingInt(rest[n+1:])
			tail := rest[n+1+m:]
			if m > 0 && strings.HasPrefix(tail, ": ") {
				return s[:i+3], l, c, tail[2:], true
			}
		}
		j := strings.Index(s[i+4:], ".go:")
		if j < 0 {
			break
		}
		i += 4 + j
	}
	return "", 0, 0, "", false
}

// splitFileLineCol splits "file.go:12:5".
func splitFileLineCol(s string) (string, int, int, bool) {
	f, l, c, msg, ok := splitPos(s + ": ")
	return f, l, c, ok && msg == ""
}

func leadingInt(s string) (int, int) {
	n := 0
	for n < len(s) && n < 10 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, 0
	}
	v, _ := strconv.Atoi(s[:n])
	return v, n
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
