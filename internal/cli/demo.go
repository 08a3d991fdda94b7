package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/internal/atomicfile"
	"github.com/gcdoctor/gcdoctor/internal/demo"
	"github.com/gcdoctor/gcdoctor/internal/demo/tour"
	"github.com/gcdoctor/gcdoctor/report"
)

// demoServerCmd is the hidden child mode: gcdoctor demo runs itself with it,
// so the server is a process of its own whose gctrace and memory belong to
// the workload alone.
const demoServerCmd = "demo-server"

func newDemoServerCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:                demoServerCmd,
		Short:              "Run the demo server (used by gcdoctor demo)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := demo.ServeMain(args, cmd.OutOrStdout()); code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}

func newDemoCmd(e *env) *cobra.Command {
	var rf reportFlags
	var requests, concurrency, rounds int
	var out string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Diagnose and fix a built-in server that allocates 10 MB per request",
		Long:  longHelp("demo"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if requests < 1 || requests > demo.MaxRequests {
				return &usageError{fmt.Errorf("--requests must be between 1 and %d", demo.MaxRequests)}
			}
			if concurrency < 1 || concurrency > 256 {
				return &usageError{errors.New("--concurrency must be between 1 and 256")}
			}
			if rounds < 1 || rounds > 50 || rounds > requests {
				return &usageError{errors.New("--rounds must be between 1 and 50, and at most --requests")}
			}
			return e.runDemo(cmd, requests, concurrency, rounds, out, &rf)
		},
	}
	cmd.Flags().IntVar(&requests, "requests", demo.DefaultRequests, "requests sent to each server, split over the rounds")
	cmd.Flags().IntVar(&concurrency, "concurrency", demo.DefaultConcurrency, "requests in flight")
	cmd.Flags().IntVar(&rounds, "rounds", tour.DefaultRounds, "rounds of load per server: the samples of the before/after statistics")
	cmd.Flags().StringVar(&out, "out", "gcdoctor-demo", "directory for the evidence bundles and report.html")
	cmd.Flags().StringVar(&rf.Color, "color", "auto", "colour the text report: auto, always or never (NO_COLOR is honoured)")
	cmd.Flags().IntVar(&rf.Width, "width", 80, "wrap the text report at this many columns")
	return cmd
}

func (e *env) runDemo(cmd *cobra.Command, requests, concurrency, rounds int, outDir string, rf *reportFlags) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("demo: cannot find the gcdoctor executable to start the server: %v", err)
	}
	dirs := map[demo.Variant]string{demo.Problem: filepath.Join(outDir, "problem"), demo.Fixed: filepath.Join(outDir, "fixed")}
	for _, d := range dirs {
		if err := tour.ClearBundle(d); err != nil {
			return fmt.Errorf("demo: %v", err)
		}
	}
	out := cmd.OutOrStdout()
	color := e.useColor(rf.Color, out)
	fmt.Fprintf(out, "gcdoctor demo: an HTTP handler that allocates a 10 MB buffer per request\n")
	fmt.Fprintf(out, "(%d requests in %d rounds, %d in flight, over loopback; every figure is\nmeasured now)\n\n", requests, rounds, concurrency)

	tool := e.tool()
	var runs []*tour.Run
	for _, v := range []demo.Variant{demo.Problem, demo.Fixed} {
		prog := e.status(string(v)+" server", 0)
		r, err := tour.RunVariant(cmd.Context(), tour.Spec{Variant: v, Server: []string{self, demoServerCmd},
			Command: []string{"gcdoctor", demoServerCmd}, Requests: requests, Concurrency: concurrency, Rounds: rounds,
			Dir: dirs[v], ToolVersion: version(), Progress: prog.Say,
			Recheck: tour.Recheck(tool, outDir, dirs[demo.Problem], dirs[demo.Fixed])})
		prog.Done()
		if err != nil {
			return fmt.Errorf("demo: %v", err)
		}
		runs = append(runs, r)
		if v == demo.Problem {
			fmt.Fprintf(out, "Diagnosis of the problem server, from all the evidence collected:\n\n")
			if err := report.Text(out, r.Diagnosis, report.TextOptions{Color: color, Width: rf.Width}); err != nil {
				return err
			}
			page := filepath.Join(outDir, "report.html")
			if err := atomicfile.Write(page, 0o644, func(w io.Writer) error {
				return report.HTML(w, r.Diagnosis, report.HTMLOptions{ToolVersion: version()})
			}); err != nil {
				return fmt.Errorf("demo: writing %s: %v", page, err)
			}
			fmt.Fprintf(out, "\nThe whole diagnosis, with charts: %s\n", page)
			fmt.Fprintf(out, "\nThe fix: reuse the buffers (sync.Pool of *[]byte) instead of allocating\n10 MB per request. Running the fixed server under the same load...\n\n")
		}
	}
	if err := report.DemoText(out, tour.Table(runs[0], runs[1]), runs[0].Diagnosis, runs[1].Diagnosis, report.TextOptions{Color: color, Width: rf.Width}); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nEvidence: %s and %s\n", runs[0].Bundle, runs[1].Bundle)
	q := diagnose.ShellQuote
	return report.Paragraph(out, "  ", fmt.Sprintf("%s doctor %s repeats the diagnosis from the bundle; %s diff %s %s compares the two runs.",
		tool, q(runs[0].Bundle), tool, q(runs[0].Bundle), q(runs[1].Bundle)), rf.Width)
}
