package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/goversion"
)

// diagFlags describe the examined program when the evidence does not.
type diagFlags struct {
	goVersion string
	gogc      string
	cycles    bool // keep every cycle and include it in --json
}

func (f *diagFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.goVersion, "go-version", "", "Go version of the examined program, e.g. go1.21.5 (default: inferred from the log format)")
	cmd.Flags().StringVar(&f.gogc, "gogc", "", "GOGC the program ran with (default: 100)")
}

func (f *diagFlags) validate() error {
	if v := f.goVersion; v != "" {
		var ok bool
		if f.goVersion, ok = goversion.Normalize(v); !ok {
			return &usageError{fmt.Errorf("--go-version %q is not a Go version such as go1.21.5", v)}
		}
	}
	if g := f.gogc; g != "" && !strings.EqualFold(g, "off") {
		if _, err := strconv.Atoi(g); err != nil {
			return &usageError{fmt.Errorf("--gogc %q: want a number or off", g)}
		}
	}
	return nil
}

func (f *diagFlags) gogcInt() int {
	n, err := strconv.Atoi(f.gogc)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

func newGctraceCmd(e *env) *cobra.Command {
	var rf reportFlags
	var df diagFlags
	cmd := &cobra.Command{
		Use:   "gctrace [FILE|-]...",
		Short: "Diagnose GODEBUG=gctrace=1 output saved to files (or read from stdin)",
		Long: `Reads GODEBUG=gctrace=1 output of any Go version — a saved log, a paste from
an issue, journald or container logs with their prefixes — and reports what
the GC costs each process and what to do about it.

With no FILE, or when FILE is -, standard input is read. Several files are
analysed together; a process never spans two files. A single evidence
bundle written by 'gcdoctor run --out' (its directory or a .tar.gz of it) is
read with what it recorded: the Go version, GOGC, GOMEMLIMIT and RSS.`,
		Example: `  GODEBUG=gctrace=1 ./server 2> gc.log; gcdoctor gctrace gc.log
  kubectl logs deploy/api | gcdoctor gctrace --go-version go1.22.4
  gcdoctor gctrace --json gc.log | jq '.segments[].summary.gc_cpu_percent'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if err := df.validate(); err != nil {
				return err
			}
			if len(args) == 0 {
				args = []string{"-"}
			}
			return e.runGctrace(cmd, args, &rf, &df)
		},
	}
	rf.register(cmd)
	df.register(cmd)
	cmd.Flags().BoolVar(&df.cycles, "cycles", false, "with --json, include every cycle (segments[].cycles[])")
	return cmd
}

func (e *env) runGctrace(cmd *cobra.Command, args []string, rf *reportFlags, df *diagFlags) error {
	if len(args) == 1 && isBundle(args[0]) {
		return e.runBundle(cmd, args[0], rf, df)
	}
	p := gctrace.NewParser(gctrace.Options{GOGC: df.gogcInt(), KeepCycles: df.cycles})
	var failed []error
	parsed := 0
	for _, name := range args {
		err := e.addInput(p, name)
		if err != nil {
			failed = append(failed, err)
			if !errors.Is(err, gctrace.ErrNoCycles) {
				continue
			}
		} else {
			parsed++
		}
	}
	log := p.Log()
	for _, in := range log.Inputs {
		if in.Partial {
			failed = append(failed, fmt.Errorf("%v; the results are partial", in.Errors[len(in.Errors)-1]))
		}
	}
	if parsed > 0 {
		d := diagnose.Diagnose(&diagnose.Input{Log: log, GoVersion: df.goVersion, GOGC: df.gogc})
		if err := e.emit(cmd, d, rf); err != nil {
			if len(failed) == 0 {
				return err
			}
			fmt.Fprintf(e.stderr, "gcdoctor: %v\n", err)
		}
	}
	if len(failed) > 0 {
		for _, err := range failed[:len(failed)-1] {
			fmt.Fprintf(e.stderr, "gcdoctor: %v\n", err)
		}
		return &exitError{code: ExitError, err: failed[len(failed)-1]}
	}
	return nil
}

// addInput parses one named input ("-" is standard input), showing progress
// on a terminal for large files.
func (e *env) addInput(p *gctrace.Parser, name string) error {
	var r io.Reader
	display := name
	var size int64
	if name == "-" {
		r = e.stdin
		display = "<stdin>"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			if st.IsDir() {
				return fmt.Errorf("%s: is a directory, not a gctrace log", name)
			}
			size = st.Size()
		}
		r = f
	}
	pr := newProgress(e.stderr, display, size)
	defer pr.done()
	return p.AddWithProgress(r, display, pr.update)
}

// isBundle reports whether path names an evidence bundle: a directory, or a
// .tar.gz/.tgz archive.
func isBundle(path string) bool {
	if strings.HasSuffix(path, ".tar.gz") || strings.HasSuffix(path, ".tgz") {
		return true
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// runBundle diagnoses the gctrace of an evidence bundle with what its
// meta.json recorded; flags still override the recorded values.
func (e *env) runBundle(cmd *cobra.Command, path string, rf *reportFlags, df *diagFlags) error {
	b, err := bundle.Open(path)
	if err != nil {
		return err
	}
	defer b.Close()
	if !b.Has(bundle.GCTraceFile) {
		return fmt.Errorf("%s: no %s in this bundle (files: %s)", path, bundle.GCTraceFile, strings.Join(b.Names(), ", "))
	}
	in := bundleInput(b, df)
	f, err := b.Open(bundle.GCTraceFile)
	if err != nil {
		return err
	}
	defer f.Close()
	name := strings.TrimSuffix(path, "/") + "/" + bundle.GCTraceFile
	p := gctrace.NewParser(gctrace.Options{GOGC: (&diagFlags{gogc: in.GOGC}).gogcInt(), KeepCycles: df.cycles})
	if err := p.Add(f, name); err != nil {
		return err
	}
	in.Log = p.Log()
	d := diagnose.Diagnose(in)
	if err := e.emit(cmd, d, rf); err != nil {
		return err
	}
	// A bundle from 'gcdoctor run' ends where the program exited, often in
	// the middle of a gc line; only a bundle of unknown origin is suspect.
	if in.Log.Partial() && in.Run == nil {
		errs := in.Log.Inputs[0].Errors
		return &exitError{code: ExitError, err: fmt.Errorf("%v; the results are partial", errs[len(errs)-1])}
	}
	return nil
}

// bundleInput starts a diagnosis input from what a bundle recorded about its
// run (meta.json and rss.csv); flags given by the user take precedence.
func bundleInput(b *bundle.Bundle, df *diagFlags) *diagnose.Input {
	in := &diagnose.Input{GoVersion: df.goVersion, GOGC: df.gogc}
	if m := b.Meta(); m != nil {
		if in.GoVersion == "" {
			in.GoVersion = m.GoVersion
		}
		if in.GOGC == "" {
			in.GOGC = m.GOGC
		}
		in.GOMEMLIMIT = m.GOMEMLIMIT
		in.PeakRSS = m.PeakRSSBytes
		if len(m.Command) > 0 {
			run := &diagnose.RunInfo{Command: m.Command, WallS: m.DurationMS / 1000, PeakRSS: m.PeakRSSBytes,
				GoVersion: m.GoVersion, GOGC: m.GOGC, GOMEMLIMIT: m.GOMEMLIMIT, GOMAXPROCS: m.GOMAXPROCS,
				NumCPU: m.NumCPU, CgroupMemoryLimit: m.CgroupMemoryLimitBytes}
			if m.ExitCode != nil {
				run.ExitCode = *m.ExitCode
			}
			in.Run = run
		}
	}
	if rss, err := b.RSS(); err == nil {
		in.RSS = rss
	}
	return in
}
