package collect

import (
	"slices"
	"testing"
)

func TestGoFlags(t *testing.T) {
	wrapper := []string{"/usr/bin/env", "GODEBUG=", "/opt/gc doctor/gcdoctor", toolexecArg, "gcdoctor-1"}
	const ours = `"-toolexec=/usr/bin/env GODEBUG= '/opt/gc doctor/gcdoctor' -gcdoctor-toolexec gcdoctor-1`
	tests := []struct {
		name, user, want string
	}{
		{"none", "", ours + `" -count=1`},
		{"kept", "-mod=mod -tags=a,b", "-mod=mod -tags=a,b " + ours + `" -count=1`},
		{"quoted", `-mod=mod '-ldflags=-X main.v=1'`, `-mod=mod '-ldflags=-X main.v=1' ` + ours + `" -count=1`},
		{"their toolexec runs under ours", "-toolexec=/bin/strace -mod=mod", "-mod=mod " + ours + ` /bin/strace" -count=1`},
		{"their quoted toolexec", `"--toolexec=/bin/time -v"`, ours + ` /bin/time -v" -count=1`},
		{"their count", "-count=3", "-count=3 " + ours + `"`},
	}
	for _, tt := range tests {
		got, err := goFlags(tt.user, wrapper)
		if err != nil || got != tt.want {
			t.Errorf("%s: goFlags(%q) = %q, %v; want %q", tt.name, tt.user, got, err, tt.want)
			continue
		}
		// What the go command reads back: the same flags, then the
		// wrapper's command line.
		fields, err := splitQuoted(got)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fields {
			if v, ok := cutFlag(f, "toolexec"); ok {
				words, err := splitQuoted(v)
				if err != nil || !slices.Equal(words[:len(wrapper)], wrapper) {
					t.Errorf("%s: -toolexec reads back as %q, %v", tt.name, words, err)
				}
			}
		}
	}
	for _, bad := range []string{`'-mod=mod`, `-toolexec='a`} {
		if got, err := goFlags(bad, wrapper); err == nil {
			t.Errorf("goFlags(%q) = %q, want an error", bad, got)
		}
	}
	if got, err := goFlags("", []string{`/it's "here"/gcdoctor`}); err == nil {
		t.Errorf("a path with both quotes gave %q, want an error", got)
	}
}

// cutFlag returns the value of a -name=value or --name=value flag.
func cutFlag(f, name string) (string, bool) {
	for _, p := range []string{"-" + name + "=", "--" + name + "="} {
		if len(f) > len(p) && f[:len(p)] == p {
			return f[len(p):], true
		}
	}
	return "", false
}

func TestSetsToolexec(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"build", "-o", "x", "."}, false},
		{[]string{"build", "-toolexec", "strace", "."}, true},
		{[]string{"test", "--toolexec=strace", "./..."}, true},
		{[]string{"test", "-run", "toolexec"}, false},
		{[]string{"vet", "-toolexecs"}, false},
	}
	for _, tt := range tests {
		if got := setsToolexec(tt.args); got != tt.want {
			t.Errorf("setsToolexec(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

func TestQuoted(t *testing.T) {
	tests := []struct {
		fields []string
		joined string
	}{
		{nil, ""},
		{[]string{"a", "b"}, "a b"},
		{[]string{"a b", "c"}, "'a b' c"},
		{[]string{"it's", `say "x"`}, `"it's" 'say "x"'`},
		{[]string{""}, "''"},
	}
	for _, tt := range tests {
		got, err := joinQuoted(tt.fields)
		if err != nil || got != tt.joined {
			t.Errorf("joinQuoted(%q) = %q, %v; want %q", tt.fields, got, err, tt.joined)
		}
		back, err := splitQuoted(got)
		if err != nil || !slices.Equal(back, tt.fields) {
			t.Errorf("splitQuoted(%q) = %q, %v; want %q", got, back, err, tt.fields)
		}
	}
	if got, err := splitQuoted(" \ta  'b c'\n\"d\" "); err != nil || !slices.Equal(got, []string{"a", "b c", "d"}) {
		t.Errorf("splitQuoted = %q, %v", got, err)
	}
}
