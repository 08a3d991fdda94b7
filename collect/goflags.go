package collect

import (
	"fmt"
	"slices"
	"strings"
)

// goFlags returns the GOFLAGS the go command runs with under Run, from the
// user's own GOFLAGS: their flags, with -toolexec set to wrapper, in front
// of their own -toolexec command if they have one, and with -count=1 unless
// they set -count.
//
// -count=1 keeps go test from answering with a cached result: a cached
// result has no GC to measure, and its output would be the gctrace lines
// of an earlier run, read as if they were this one's. Under -count=1 go
// test neither looks up nor stores results, so the test cache is left as
// it was found.
func goFlags(user string, wrapper []string) (string, error) {
	fields, err := splitQuoted(user)
	if err != nil {
		return "", fmt.Errorf("GOFLAGS: %v", err)
	}
	toolexec := slices.Clip(wrapper)
	count := false
	var kept []string
	for _, f := range fields {
		name, value, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-"), "=")
		switch name {
		case "toolexec":
			theirs, err := splitQuoted(value)
			if err != nil {
				return "", fmt.Errorf("GOFLAGS: -toolexec: %v", err)
			}
			toolexec = append(toolexec, theirs...)
			continue
		case "count":
			count = true
		}
		kept = append(kept, f)
	}
	value, err := joinQuoted(toolexec)
	if err != nil {
		return "", fmt.Errorf("-toolexec: %v", err)
	}
	kept = append(kept, "-toolexec="+value)
	if !count {
		kept = append(kept, "-count=1")
	}
	return joinQuoted(kept)
}

// setsToolexec reports whether a go command line sets -toolexec. Such a
// flag would replace the one Run puts in GOFLAGS.
func setsToolexec(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if strings.HasPrefix(a, "-") && name == "toolexec" {
			return true
		}
	}
	return false
}

// splitQuoted splits s into fields as the go command splits GOFLAGS and
// the value of -toolexec: at spaces, where a field that starts with a
// single or double quote runs to the next such quote, without escapes.
// The go command's own code (cmd/internal/quoted) cannot be imported.
func splitQuoted(s string) ([]string, error) {
	var fields []string
	for {
		s = strings.TrimLeft(s, " \t\n\r")
		if s == "" {
			return fields, nil
		}
		if q := s[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return nil, fmt.Errorf("unterminated %c string", q)
			}
			fields = append(fields, s[1:1+end])
			s = s[2+end:]
			continue
		}
		end := strings.IndexAny(s, " \t\n\r")
		if end < 0 {
			end = len(s)
		}
		fields = append(fields, s[:end])
		s = s[end:]
	}
}

// joinQuoted joins fields so that splitQuoted gives them back, quoting a
// field that holds a space or a quote with the quote it does not hold.
func joinQuoted(fields []string) (string, error) {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case f != "" && !strings.ContainsAny(f, " \t\n\r'\""):
			b.WriteString(f)
		case !strings.Contains(f, "'"):
			b.WriteString("'" + f + "'")
		case !strings.Contains(f, `"`):
			b.WriteString(`"` + f + `"`)
		default:
			return "", fmt.Errorf("%q holds both kinds of quote and cannot be passed to the go command", f)
		}
	}
	return b.String(), nil
}
