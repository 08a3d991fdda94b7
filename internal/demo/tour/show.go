package tour

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/internal/atomicfile"
	"github.com/gcdoctor/gcdoctor/internal/demo"
	"github.com/gcdoctor/gcdoctor/report"
)

// Limits of the show's load, as gcdoctor demo's flags give it.
const (
	MaxConcurrency = 256
	MaxRounds      = 50
)

// ShowSpec says how to run the show of gcdoctor demo.
type ShowSpec struct {
	// Out receives the show, formatted by report.
	Out io.Writer
	// Server starts a demo server and Command is how diagnoses name it
	// (see Spec).
	Server, Command []string
	// Requests are sent to each server over Rounds, Concurrency at once.
	Requests, Concurrency, Rounds int
	// Dir holds both bundles and report.html (--out).
	Dir string
	// Tool is how the printed commands start gcdoctor; ToolVersion is
	// recorded in the bundles and the page.
	Tool, ToolVersion string
	// Color and Width shape the text.
	Color bool
	Width int
	// Status starts a progress line about name: say updates it, done
	// ends it.
	Status func(name string) (say func(string), done func())
}

// CheckLoad checks the show's load as gcdoctor demo's flags give it.
func CheckLoad(requests, concurrency, rounds int) error {
	switch {
	case requests < 1 || requests > demo.MaxRequests:
		return fmt.Errorf("--requests must be between 1 and %d", demo.MaxRequests)
	case concurrency < 1 || concurrency > MaxConcurrency:
		return fmt.Errorf("--concurrency must be between 1 and %d", MaxConcurrency)
	case rounds < 1 || rounds > MaxRounds || rounds > requests:
		return fmt.Errorf("--rounds must be between 1 and %d, and at most --requests", MaxRounds)
	}
	return nil
}

// Show runs the problem server and then the fixed one under the same
// load, and tells the story on s.Out: the problem's diagnosis (the whole
// of it, with charts, in report.html), the fix, the before/after
// comparison, and how to look at the evidence again.
func Show(ctx context.Context, s ShowSpec) error {
	dirs := map[demo.Variant]string{demo.Problem: filepath.Join(s.Dir, "problem"), demo.Fixed: filepath.Join(s.Dir, "fixed")}
	for _, d := range dirs {
		if err := ClearBundle(d); err != nil {
			return fmt.Errorf("demo: %v", err)
		}
	}
	out := s.Out
	text := report.TextOptions{Color: s.Color, Width: s.Width}
	fmt.Fprintf(out, "gcdoctor demo: an HTTP handler that allocates a 10 MB buffer per request\n")
	fmt.Fprintf(out, "(%d requests in %d rounds, %d in flight, over loopback; every figure is\nmeasured now)\n\n", s.Requests, s.Rounds, s.Concurrency)
	var runs []*Run
	for _, v := range []demo.Variant{demo.Problem, demo.Fixed} {
		say, done := s.Status(string(v) + " server")
		r, err := RunVariant(ctx, Spec{Variant: v, Server: s.Server,
			Command: s.Command, Requests: s.Requests, Concurrency: s.Concurrency, Rounds: s.Rounds,
			Dir: dirs[v], ToolVersion: s.ToolVersion, Progress: say,
			Recheck: Recheck(s.Tool, s.Dir, dirs[demo.Problem], dirs[demo.Fixed])})
		done()
		if err != nil {
			return fmt.Errorf("demo: %v", err)
		}
		runs = append(runs, r)
		if v == demo.Problem {
			if err := showProblem(out, r, s, text); err != nil {
				return err
			}
		}
	}
	if err := report.DemoText(out, Table(runs[0], runs[1]), runs[0].Diagnosis, runs[1].Diagnosis, text); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nEvidence: %s and %s\n", runs[0].Bundle, runs[1].Bundle)
	q, tool := diagnose.ShellQuote, s.Tool
	return report.Paragraph(out, "  ", fmt.Sprintf("%s doctor %s repeats the diagnosis from the bundle; %s diff %s %s compares the two runs.",
		tool, q(runs[0].Bundle), tool, q(runs[0].Bundle), q(runs[1].Bundle)), s.Width)
}

// showProblem tells what the problem server's run found: its diagnosis,
// written in full with charts to report.html, and the fix.
func showProblem(out io.Writer, r *Run, s ShowSpec, text report.TextOptions) error {
	fmt.Fprintf(out, "Diagnosis of the problem server, from all the evidence collected:\n\n")
	if err := report.Text(out, r.Diagnosis, text); err != nil {
		return err
	}
	page := filepath.Join(s.Dir, "report.html")
	if err := atomicfile.Write(page, 0o644, func(w io.Writer) error {
		return report.HTML(w, r.Diagnosis, report.HTMLOptions{ToolVersion: s.ToolVersion})
	}); err != nil {
		return fmt.Errorf("demo: writing %s: %v", page, err)
	}
	fmt.Fprintf(out, "\nThe whole diagnosis, with charts: %s\n", page)
	fmt.Fprintf(out, "\nThe fix: reuse the buffers (sync.Pool of *[]byte) instead of allocating\n10 MB per request. Running the fixed server under the same load...\n\n")
	return nil
}
