package cli

import (
	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/evidence"
)

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
			opt := e.evidenceOptions(evidence.GCTrace, &df)
			opt.KeepCycles = rf.cycles
			set, err := evidence.Load(cmd.Context(), args, opt)
			if err != nil {
				return e.loadFailed(set, err)
			}
			return e.diagnoseSet(cmd, set, &rf, false)
		},
	}
	rf.register(cmd)
	df.register(cmd)
	rf.registerCycles(cmd)
	return cmd
}
