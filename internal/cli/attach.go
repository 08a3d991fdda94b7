package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/collect"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/heapprof"
)

func newAttachCmd(e *env) *cobra.Command {
	var rf reportFlags
	var df diagFlags
	var out string
	var seconds, top int
	cmd := &cobra.Command{
		Use:   "attach URL",
		Short: "Collect profiles and a trace from a running program's /debug/pprof and diagnose them",
		Long: `Connects to a program that serves net/http/pprof, downloads its allocs,
heap and goroutine profiles and an execution trace of --seconds seconds into
an evidence bundle, and diagnoses what it collected. The bundle can be read
again later, or elsewhere, with gcdoctor heap or gcdoctor gctrace.

URL is the program's address (localhost:6060) or its /debug/pprof/ page.`,
		Example: `  gcdoctor attach localhost:6060
  gcdoctor attach --seconds 20 --out incident-42 http://10.0.0.7:6060/debug/pprof/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if err := df.validate(); err != nil {
				return err
			}
			if seconds < 0 || seconds > 600 {
				return &usageError{fmt.Errorf("--seconds must be between 0 and 600")}
			}
			return e.runAttach(cmd, args[0], out, seconds, top, &rf, &df)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "bundle directory to create (default gcdoctor-attach-DATE-TIME)")
	cmd.Flags().IntVar(&seconds, "seconds", 5, "length of the execution trace; 0 skips it")
	cmd.Flags().IntVar(&top, "top", 10, "how many allocation sites to rank")
	rf.register(cmd)
	df.register(cmd)
	return cmd
}

func (e *env) runAttach(cmd *cobra.Command, url, out string, seconds, top int, rf *reportFlags, df *diagFlags) error {
	if out == "" {
		out = "gcdoctor-attach-" + time.Now().Format("20060102-150405")
	}
	w, err := bundle.Create(out)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := collect.Attach(ctx, collect.AttachSpec{
		URL: url, Seconds: seconds, Out: w, ToolVersion: version(),
		Progress: func(what string) { fmt.Fprintf(e.stderr, "gcdoctor: fetching the %s\n", what) },
	})
	if err != nil {
		if res == nil || len(res.Files) == 0 {
			os.RemoveAll(out) // nothing collected: leave no empty bundle behind
		}
		return err
	}
	fmt.Fprintf(e.stderr, "gcdoctor: evidence kept in %s\n", out)
	in := &diagnose.Input{GoVersion: df.goVersion, GOGC: df.gogc}
	f, err := os.Open(filepath.Join(out, bundle.AllocsFile))
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := heapprof.Read(f, filepath.Join(out, bundle.AllocsFile))
	if err != nil {
		return err
	}
	h := &diagnose.HeapEvidence{Name: filepath.Join(out, bundle.AllocsFile), Profile: p, Source: newSourceReader().line}
	h.Top = p.Top(heapprof.SiteOptions{N: top})
	in.Heap = h
	return e.emit(cmd, diagnose.Diagnose(in), rf)
}
