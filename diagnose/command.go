package diagnose

import (
	"path/filepath"
	"strings"
)

// Recheck says how the findings' check commands (Finding.Command) collect
// new evidence once a fix is in. A check command runs as printed: it names
// gcdoctor the way this shell can start it, it produces every file it
// reads, and it reruns a program only when the evidence says how. What is
// not known yields no command; the finding's Verify then says what to do.
type Recheck struct {
	// Tool is how a shell starts gcdoctor: "gcdoctor" when it is on the
	// PATH, else a path or a go run command. Empty means "gcdoctor".
	Tool string
	// URL is the /debug/pprof address of the running program the
	// profiles and the trace were fetched from, "" when unknown.
	URL string
	// SourceDir is the module directory that the --source and lint
	// patterns are relative to; "" or "." is the current directory.
	SourceDir string
	// GCTrace, Heap and Trace, when set, are the check commands of the
	// findings on each kind of evidence, for a caller that knows better
	// than the evidence how the program is run and loaded: gcdoctor demo
	// compares its problem server with the fixed one it ran under the
	// same load.
	GCTrace, Heap, Trace string
	// Rerun, when set, runs the program again under the same load and
	// diagnoses it; settings put before it in the environment reach the
	// program. The tuning check uses it for a program that cannot be
	// swept as it was run (a server that needs load).
	Rerun string
}

// tool returns how a shell starts gcdoctor.
func (r *Recheck) tool() string {
	if r.Tool == "" {
		return "gcdoctor"
	}
	return r.Tool
}

// Exit statuses of a program that a signal asked to stop (SIGHUP, SIGINT,
// SIGTERM): a service stopped by hand rather than a job that finished.
var stoppedStatus = map[int]bool{128 + 1: true, 128 + 2: true, 128 + 15: true}

// stopped reports whether the run was a program stopped by a signal, such
// as a server ended with Ctrl-C once it had been loaded: rerunning it
// proves nothing without the same load, and a sweep would wait for it
// forever.
func (r *RunInfo) stopped() bool {
	return r != nil && r.ExitKnown && stoppedStatus[r.ExitCode]
}

// loadNote ends the check command of a stopped program: a shell comment,
// so the command still runs as printed.
const loadNote = "  # load it as before, then stop it with Ctrl-C"

// checkCommand returns a command line that collects new evidence of the
// kind a finding rests on and compares or diagnoses it: what to run once
// the fix is in. It returns "" when the evidence does not say how to
// collect it again (a log or a profile of unknown origin).
func (c *evidenceView) checkCommand(f *Finding) string {
	in := c.in
	rc := &in.Recheck
	gcd := rc.tool()
	switch {
	case f.ID == ruleLintHot:
		pats := []string{"./..."}
		if in.Lint != nil && len(in.Lint.Patterns) > 0 {
			pats = in.Lint.Patterns
		}
		return gcd + " lint" + dirFlag(rc.SourceDir) + " " + shellJoin(pats)
	case strings.HasPrefix(f.ID, "heap-"):
		if rc.Heap != "" {
			return rc.Heap
		}
		if rc.URL == "" {
			return ""
		}
		// The allocs profile counts every allocation since the program
		// started: the restarted program's profile shows the fix alone.
		return gcd + " attach --seconds 0 " + ShellQuote(rc.URL)
	case len(f.Segments) == 0 && in.Trace != nil && f.ID != "tune-gc":
		// The trace rules, and the cross-checks, judge a trace.
		if rc.Trace != "" {
			return rc.Trace
		}
		if rc.URL == "" {
			return ""
		}
		return gcd + " attach --seconds 5 " + ShellQuote(rc.URL)
	}
	// The gctrace rules: run the program again and compare.
	if rc.GCTrace != "" {
		return rc.GCTrace
	}
	return c.rerunCommand("")
}

// rerunCommand runs the program again as it was run, with the GC settings
// it ran with and env (settings such as "GOGC=200", or "") in its
// environment, and compares the new evidence with the old; "" when the
// evidence does not say how it ran.
func (c *evidenceView) rerunCommand(env string) string {
	in := c.in
	gcd := in.Recheck.tool()
	r := in.Run
	if r == nil || len(r.Command) == 0 {
		return ""
	}
	// The run's own GC settings come along, unless env sets them anew.
	for _, kv := range [][2]string{{"GOGC", r.GOGC}, {"GOMEMLIMIT", r.GOMEMLIMIT}, {"GOMAXPROCS", r.GOMAXPROCS}} {
		if kv[1] != "" && !strings.Contains(" "+env, " "+kv[0]+"=") {
			env = strings.TrimSpace(env + " " + ShellQuote(kv[0]+"="+kv[1]))
		}
	}
	if env != "" {
		env += " "
	}
	cmd := shellJoin(r.Command)
	note := ""
	if r.stopped() {
		note = loadNote
	}
	if in.Bundle == "" {
		return env + gcd + " run -- " + cmd + note
	}
	after := afterName(in.Bundle)
	// A stopped program's run ends in Ctrl-C, which a shell list joined by
	// && would not get past; gcdoctor run exits with the program's status.
	join := " && "
	if note != "" {
		join = "; "
	}
	return env + gcd + " run --out " + ShellQuote(after) + " -- " + cmd + join + gcd + " diff " + ShellQuote(in.Bundle) + " " + ShellQuote(after) + note
}

// afterName names the bundle of the run after the fix, beside the bundle
// of the run before it.
func afterName(bundle string) string {
	b := filepath.Clean(bundle)
	switch filepath.Base(b) {
	case ".", "..", string(filepath.Separator):
		// A bundle named by its directory alone: the new one goes
		// beside the current directory's files.
		return "gcdoctor-after"
	}
	for _, ext := range []string{".tar.gz", ".tgz"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b + "-after"
}

// dirFlag returns the --dir flag for a module directory other than the
// current one, with its leading space.
func dirFlag(dir string) string {
	if dir == "" || dir == "." {
		return ""
	}
	return " --dir " + ShellQuote(dir)
}

// shellJoin quotes each argument that needs it for a POSIX shell.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// ShellQuote returns s as one word for a POSIX shell: unchanged when it
// holds no character the shell would read, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
