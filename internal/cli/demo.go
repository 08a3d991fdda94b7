package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/internal/demo"
	"github.com/gcdoctor/gcdoctor/internal/demo/tour"
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
			if err := tour.CheckLoad(requests, concurrency, rounds); err != nil {
				return &usageError{err}
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
	out := cmd.OutOrStdout()
	return tour.Show(cmd.Context(), tour.ShowSpec{Out: out, Server: []string{self, demoServerCmd}, Command: []string{"gcdoctor", demoServerCmd},
		Requests: requests, Concurrency: concurrency, Rounds: rounds, Dir: outDir, Tool: e.tool(), ToolVersion: version(),
		Color: e.useColor(rf.Color, out), Width: rf.Width,
		Status: func(name string) (func(string), func()) {
			st := e.status(name, 0)
			return st.Say, st.Done
		}})
}
