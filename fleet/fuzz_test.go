package fleet

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzFlags feeds --pprof-port and --match arbitrary text: they fail
// with an error or give a port map whose URLs parse and a selector
// without braces or newlines.
func FuzzFlags(f *testing.F) {
	for _, s := range []string{"", "6060", "9100=6060,9200=6061", "{job=\"a\"}", "x=", "=1", "65536", "{", "a\n}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if pm, err := ParsePorts(s); err == nil {
			u, err := pm.pprofURL("http://10.0.0.1:9100/metrics")
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			if _, err := url.Parse(u); err != nil {
				t.Fatalf("%q gives %q: %v", s, u, err)
			}
		}
		if sel, err := selector(s); err == nil && strings.ContainsAny(sel, "{}\n") {
			t.Fatalf("selector(%q) = %q", s, sel)
		}
	})
}
