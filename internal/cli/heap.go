package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/escape"
	"github.com/gcdoctor/gcdoctor/heapprof"
)

func newHeapCmd(e *env) *cobra.Command {
	var rf reportFlags
	var df diagFlags
	var source []string
	var dir string
	var top int
	var ops int64
	var user []string
	cmd := &cobra.Command{
		Use:   "heap PROFILE|BUNDLE",
		Short: "Find the lines that allocate the garbage, and why they allocate",
		Long: `Reads a heap or allocs profile (gzip protobuf as written by runtime/pprof,
go test -memprofile or /debug/pprof/heap, or the text of ?debug=1) and ranks
the allocation sites by bytes allocated, each charged to the first line of
your own code on its stack: io.Copy's hidden buffer is charged to the line
that called io.Copy, append's growth to the append. With --source, the
compiler's escape analysis says why each site's values live on the heap.
Each hot site is then diagnosed: large per-request buffers, io.Copy
buffers, slice and map growth, string concatenation, conversions, fmt, and
values too large for the stack.`,
		Example: `  go test -run '^$' -bench . -memprofile mem.out ./pkg && gcdoctor heap mem.out
  curl -s localhost:6060/debug/pprof/allocs > allocs.pb.gz
  gcdoctor heap --source ./... allocs.pb.gz
  gcdoctor heap --json allocs.pb.gz | jq '.sites[0]'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.validate(); err != nil {
				return err
			}
			if err := df.validate(); err != nil {
				return err
			}
			if top < 1 || top > 1000 {
				return &usageError{fmt.Errorf("--top must be between 1 and 1000")}
			}
			return e.runHeap(cmd, args[0], source, dir, top, ops, user, &rf, &df)
		},
	}
	cmd.Flags().StringSliceVar(&source, "source", nil, "package patterns to run escape analysis on (e.g. ./...), joined to the sites by file:line")
	cmd.Flags().StringVar(&dir, "dir", ".", "module directory for --source")
	cmd.Flags().IntVar(&top, "top", 10, "how many sites to rank")
	cmd.Flags().Int64Var(&ops, "ops", 0, "requests or operations the profile covers, for bytes per op")
	cmd.Flags().StringSliceVar(&user, "user", nil, "module or package paths that are your code (default: everything outside the standard library and golang.org/x)")
	rf.register(cmd)
	df.register(cmd)
	return cmd
}

func (e *env) runHeap(cmd *cobra.Command, path string, source []string, dir string, top int, ops int64, user []string, rf *reportFlags, df *diagFlags) error {
	var r io.Reader
	if isBundle(path) {
		// A bundle from attach: the allocs profile says what became
		// garbage; a heap profile alone still has alloc_space too.
		b, err := bundle.Open(path)
		if err != nil {
			return err
		}
		defer b.Close()
		name := bundle.AllocsFile
		if !b.Has(name) {
			name = bundle.HeapFile
		}
		rc, err := b.Open(name)
		if err != nil {
			return fmt.Errorf("%s: no %s or %s in this bundle", path, bundle.AllocsFile, bundle.HeapFile)
		}
		defer rc.Close()
		r, path = rc, filepath.Join(path, name)
	} else {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	p, err := heapprof.Read(r, path)
	if err != nil {
		return err
	}
	h := &diagnose.HeapEvidence{Name: path, Profile: p, Ops: ops, Source: newSourceReader().line}
	opts := heapprof.SiteOptions{N: top}
	if len(user) > 0 {
		opts.User = heapprof.UserModules(user...)
	}
	h.Top = p.Top(opts)
	if len(source) > 0 {
		ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Minute)
		defer cancel()
		rep, err := escape.Analyze(ctx, dir, source)
		if err != nil && rep == nil {
			return fmt.Errorf("escape analysis of %s: %v", strings.Join(source, " "), err)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "gcdoctor: escape analysis: %v (using what it produced)\n", err)
		}
		h.Escape = rep
	}
	d := diagnose.Diagnose(&diagnose.Input{Heap: h, GoVersion: df.goVersion, GOGC: df.gogc})
	return e.emit(cmd, d, rf)
}

// sourceReader reads source lines for the report, caching each file; a
// file that is not on this machine yields empty lines.
type sourceReader struct {
	files map[string][]string
}

func newSourceReader() *sourceReader { return &sourceReader{files: map[string][]string{}} }

func (r *sourceReader) line(file string, n int) string {
	lines, ok := r.files[file]
	if !ok {
		if f, err := os.Open(file); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				lines = append(lines, sc.Text())
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
