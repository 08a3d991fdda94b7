// Package flagargs rewrites command lines for pflag, the flag parser of
// cobra, so that gcdoctor takes flags the way Go's own tools do.
//
// Go's tools take their long flags with one dash (go vet -json,
// staticcheck -f, benchstat -format), and their users type gcdoctor's the
// same way. pflag reads -json as the shorthands -j -s -o -n, so the words
// that name a long flag are rewritten to two dashes before the flags are
// parsed.
package flagargs

import (
	"strings"

	"github.com/spf13/pflag"
)

// SingleDash returns args with each -NAME and -NAME=VALUE, where NAME
// is a long flag of fs at least two letters long, written as --NAME and
// --NAME=VALUE. Values of flags that take one (--dir -json names a
// directory) and everything after "--" are left as they are. A cluster of
// shorthands that spells a long flag's name is read as that flag, as Go's
// flag package would.
func SingleDash(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := fs.Lookup(name); f != nil && !hasValue && takesValue(f) && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		case len(a) > 2 && a[0] == '-':
			name, _, hasValue := strings.Cut(a[1:], "=")
			if f := fs.Lookup(name); f != nil && len(name) > 1 {
				out[len(out)-1] = "-" + a
				if !hasValue && takesValue(f) && i+1 < len(args) {
					i++
					out = append(out, args[i])
				}
				continue
			}
			if shorthandWantsNext(fs, a[1:]) && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		case len(a) == 2 && a[0] == '-':
			if shorthandWantsNext(fs, a[1:]) && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		}
	}
	return out
}

// takesValue reports whether f needs a value (--dir DIR), rather than
// standing alone (--json).
func takesValue(f *pflag.Flag) bool { return f.NoOptDefVal == "" }

// shorthandWantsNext reports whether the shorthand cluster letters (-xvf)
// ends with a flag whose value is the next argument.
func shorthandWantsNext(fs *pflag.FlagSet, letters string) bool {
	for i, c := range letters {
		if c == '=' {
			return false
		}
		f := fs.ShorthandLookup(string(c))
		if f == nil {
			return false
		}
		if takesValue(f) {
			return i+1 == len(letters) // else the rest of the word is the value
		}
	}
	return false
}

// IsUsageError reports whether err is one of the argument errors cobra
// and pflag return as plain errors: an unknown command or flag, or too
// many or too few arguments.
func IsUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
