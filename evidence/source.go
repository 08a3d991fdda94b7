package evidence

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/escape"
	"github.com/gcdoctor/gcdoctor/internal/plural"
	"github.com/gcdoctor/gcdoctor/lint"
)

// escapeTimeout bounds the compiler run of the escape analysis: a module
// large enough to take longer is better analysed package by package.
const escapeTimeout = 3 * time.Minute

// source runs what --source asks for on the user's packages: the escape
// analysis that explains a profile's sites, and with Options.Lint the
// source checks that the profile then weighs.
func (l *loader) source() {
	if len(l.opt.Source) == 0 {
		return
	}
	dir := l.opt.Dir
	if dir == "" {
		dir = "."
	}
	pkgs := strings.Join(l.opt.Source, " ")
	if h := l.in.Heap; h != nil {
		ctx, cancel := context.WithTimeout(l.ctx, escapeTimeout)
		rep, err := escape.Analyze(ctx, dir, l.opt.Source)
		cancel()
		switch {
		case rep == nil:
			l.set.Failed = append(l.set.Failed, fmt.Errorf("escape analysis of %s: %v", pkgs, err))
		case err != nil:
			l.set.note("escape analysis of %s: %v (using what it produced)", pkgs, err)
		}
		h.Escape = rep
	}
	if !l.opt.Lint {
		return
	}
	res, err := lint.Run(dir, l.opt.Source, lint.Options{})
	if err != nil {
		l.set.Failed = append(l.set.Failed, fmt.Errorf("source checks of %s: %v", pkgs, err))
		return
	}
	l.in.Lint = lintEvidence(l.opt.Source, res)
	if len(res.Broken) > 0 {
		l.set.note("source checks: %s checked as far as possible", plural.Count(len(res.Broken), "package does not compile and was", "packages do not compile and were"))
	}
}

// lintEvidence turns the source checks' result into diagnosis evidence.
func lintEvidence(patterns []string, res *lint.Result) *diagnose.LintEvidence {
	le := &diagnose.LintEvidence{Patterns: patterns}
	for _, d := range res.Diagnostics {
		title := d.Rule
		if a := lint.Lookup(d.Rule); a != nil {
			title = lint.Title(a)
		}
		le.Findings = append(le.Findings, diagnose.LintFinding{Rule: d.Rule, Title: title, File: d.File, Line: d.Line,
			Column: d.Column, Message: d.Message, Fixable: len(d.SuggestedFixes) > 0})
	}
	for _, b := range res.Broken {
		le.Broken = append(le.Broken, b.Package)
	}
	return le
}

// sourceReader reads source lines for the report, caching each file; a
// file that is not on this machine yields empty lines.
type sourceReader struct {
	files map[string][]string
}

// maxSourceFiles bounds the files a report quotes lines from.
const maxSourceFiles = 256

func newSourceReader() *sourceReader { return &sourceReader{files: map[string][]string{}} }

func (r *sourceReader) line(file string, n int) string {
	lines, ok := r.files[file]
	if !ok && len(r.files) < maxSourceFiles {
		if f, err := os.Open(file); err == nil {
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				sc := bufio.NewScanner(f)
				sc.Buffer(make([]byte, 64<<10), 1<<20)
				for sc.Scan() && len(lines) < 1<<20 {
					lines = append(lines, sc.Text())
				}
			}
			f.Close()
		}
		r.files[file] = lines
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}
