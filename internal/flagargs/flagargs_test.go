package flagargs

import (
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
