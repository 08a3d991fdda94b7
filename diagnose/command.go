package diagnose

import "strings"

// checkCommand returns a command line that collects new evidence of the
// kind a finding rests on and compares or diagnoses it: what to run once
// the fix is in. Names of files still to be recorded end in "-after".
func (c *evidenceView) checkCommand(f *Finding) string {
	in := c.in
	switch {
	case f.ID == ruleLintHot:
		pats := []string{"./..."}
		if in.Lint != nil && len(in.Lint.Patterns) > 0 {
			pats = in.Lint.Patterns
		}
		return "gcdoctor lint " + strings.Join(pats, " ")
	case strings.HasPrefix(f.ID, "heap-"):
		src := ""
		if in.Heap != nil && in.Heap.Escape != nil {
			src = "--source ./... "
		}
		return "gcdoctor heap " + src + "allocs-after.pb.gz"
	case len(f.Segments) == 0 && in.Trace != nil && f.ID != "tune-gc":
		// The trace rules, and the cross-checks, judge a trace.
		if in.Bundle != "" && in.Run == nil {
			return "gcdoctor attach --seconds 5 --out after URL && gcdoctor doctor after"
		}
		return "gcdoctor trace trace-after.out"
	}
	// The gctrace rules: run the program again and compare.
	if r := in.Run; r != nil && len(r.Command) > 0 {
		cmd := shellJoin(r.Command)
		if in.Bundle != "" {
			return "gcdoctor run --out after -- " + cmd + " && gcdoctor diff " + shellQuote(in.Bundle) + " after"
		}
		return "gcdoctor run -- " + cmd
	}
	if in.Log != nil && len(in.Log.Inputs) == 1 && in.Log.Inputs[0].Name != "" && in.Log.Inputs[0].Name != "-" {
		log := in.Log.Inputs[0].Name
		return "GODEBUG=gctrace=1 PROGRAM 2> after.log && gcdoctor diff " + shellQuote(log) + " after.log"
	}
	return ""
}

// shellJoin quotes each argument that needs it for a POSIX shell.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
