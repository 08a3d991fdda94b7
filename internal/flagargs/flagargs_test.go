package flagargs

import (
	"errors"
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

func TestSingleDash(t *testing.T) {
	fs := pflag.NewFlagSet("lint", pflag.ContinueOnError)
	fs.Bool("json", false, "")
	fs.Bool("fix", false, "")
	fs.String("dir", ".", "")
	fs.StringP("output", "o", "", "")
	fs.BoolP("verbose", "v", false, "")
	fs.StringSlice("tags", nil, "")
	tests := []struct {
		args, want []string
	}{
		{[]string{"-json", "./..."}, []string{"--json", "./..."}},
		{[]string{"-fix", "-json=true"}, []string{"--fix", "--json=true"}},
		{[]string{"-dir", "x", "-tags", "a,b"}, []string{"--dir", "x", "--tags", "a,b"}},
		{[]string{"--json", "-o", "out"}, []string{"--json", "-o", "out"}},
		// Values are left alone, whatever they look like.
		{[]string{"--dir", "-json"}, []string{"--dir", "-json"}},
		{[]string{"-dir", "-json"}, []string{"--dir", "-json"}},
		{[]string{"-o", "-json"}, []string{"-o", "-json"}},
		{[]string{"-vo", "-json"}, []string{"-vo", "-json"}},
		{[]string{"-ojson", "-json"}, []string{"-ojson", "--json"}},
		// So are shorthands, unknown words and everything after --.
		{[]string{"-v", "-x", "-"}, []string{"-v", "-x", "-"}},
		{[]string{"-nosuch", "./..."}, []string{"-nosuch", "./..."}},
		{[]string{"--", "-json"}, []string{"--", "-json"}},
		{[]string{"./...", "-json"}, []string{"./...", "--json"}},
	}
	for _, tt := range tests {
		if got := SingleDash(fs, tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("%q: got %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestIsUsageError(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		want bool
	}{
		{`unknown command "frob" for "gcdoctor"`, true},
		{"unknown flag: --frob", true},
		{"unknown shorthand flag: 'z' in -z", true},
		{"accepts 1 arg(s), received 2", true},
		{"requires at least 1 arg(s), only received 0", true},
		{`invalid argument "x" for "--width" flag: strconv.ParseInt: parsing "x": invalid syntax`, true},
		{"open app.log: no such file or directory", false},
	} {
		if got := IsUsageError(errors.New(tt.msg)); got != tt.want {
			t.Errorf("IsUsageError(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}
