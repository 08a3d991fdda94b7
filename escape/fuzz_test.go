package escape

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes Parse panic or report a decision
// that is not in the input.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/fixtures/*.txt")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a.go:1:2: x escapes to heap in F:\na.go:1:2:   flow: y\na.go:1:2:     from (((x) at a.go:1\na.go:1:2: x escapes to heap\n"))
	f.Add([]byte("x.go:1:1: .go:2:3: moved to heap: .go:4:5: \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Parse(bytes.NewReader(data), "/d")
		if err != nil {
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		if len(rep.Sites)+rep.Skipped > lines {
			t.Fatalf("%d sites and %d skipped from %d lines", len(rep.Sites), rep.Skipped, lines)
		}
		for _, s := range rep.Sites {
			if s.Kind == KindUnknown || !strings.HasSuffix(s.File, ".go") || !strings.Contains(string(data), s.Expr) {
				t.Fatalf("bad site %+v", s)
			}
			rep.At(s.File, s.Line)
			s.Reasons()
		}
	})
}
