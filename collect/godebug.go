package collect

import "strings"

// withGCTrace returns env with gctrace=1 added to GODEBUG. The program's
// own GODEBUG settings are kept because they change how the runtime behaves
// (madvdontneed, for example, changes RSS) and the evidence must describe
// the program as it normally runs. When env sets GODEBUG more than once the
// last one is used, as the runtime would.
func withGCTrace(env []string) []string {
	old := ""
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			old = v
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GODEBUG="+mergeGODEBUG(old))
}

// mergeGODEBUG returns the GODEBUG value old with any gctrace setting
// replaced by gctrace=1, appended last.
func mergeGODEBUG(old string) string {
	return strings.Join(append(otherGODEBUG(old), "gctrace=1"), ",")
}

// otherGODEBUG returns the items of the GODEBUG value old other than
// gctrace. Empty items are dropped so that stray commas do not accumulate.
func otherGODEBUG(old string) []string {
	var kept []string
	for _, item := range strings.Split(old, ",") {
		item = strings.TrimSpace(item)
		key, _, _ := strings.Cut(item, "=")
		if item == "" || key == "gctrace" {
			continue
		}
		kept = append(kept, item)
	}
	return kept
}

// lookupEnv returns the value of key in env, using the last setting as
// os/exec does when it passes env to a program.
func lookupEnv(env []string, key string) string {
	val := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			val = v
		}
	}
	return val
}
