package heapprof

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead checks that no input makes Read or the ranking panic, and that
// what Read accepts is self-consistent.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/profiles/*")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 32<<10 {
			data = data[:32<<10]
		}
		f.Add(data)
	}
	f.Add([]byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1 0x2\n#\t0x0\tmain.f+0x1\t/x.go:3\n"))
	f.Add([]byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1\n#\t0x0\tmain.f\n#\tzz\n#\t0x0\t\t\n"))
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(bytes.NewReader(data), "fuzz.pprof")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.pprof: ") {
				t.Fatalf("error %q does not name the input", err)
			}
			return
		}
		for _, a := range []Attribution{AttrUser, AttrFlat, AttrCumulative} {
			top := p.Top(SiteOptions{N: 5, Attribution: a})
			if len(top.Sites) > 5 || top.Dropped < 0 || top.Dropped+len(top.Sites) != top.Total {
				t.Fatalf("attribution %d: %d sites, %d dropped of %d", a, len(top.Sites), top.Dropped, top.Total)
			}
			for _, s := range top.Sites {
				if sl := s.ShortLived(); sl < 0 || sl > 1 {
					t.Fatalf("short-lived %v", sl)
				}
			}
		}
		Diff(p, p, SiteOptions{N: 3})
	})
}
