package heapprof

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead checks that no input makes Read or the ranking panic, that
// what Read accepts is self-consistent, and that reading within tight
// bounds loses samples but never changes the totals.
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
	f.Add(profileBytes(f, 6, 3, true))
	f.Add(gz(f, profileBytes(f, 4, 2, false)))
	f.Add(gz(f, gz(f, []byte("heap profile:"))))
	f.Add(gz(f, make([]byte, 4<<10)))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(bytes.NewReader(data), "fuzz.pprof")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.pprof: ") {
				t.Fatalf("error %q does not name the input", err)
			}
			return
		}
		check(t, p)

		// Within bounds that drop samples, the totals stay.
		limits := []*int{&MaxSamples, &MaxStackFrames}
		saved := []int{MaxSamples, MaxStackFrames}
		MaxSamples, MaxStackFrames = 2, 5
		q, err := Read(bytes.NewReader(data), "fuzz.pprof")
		for i, l := range limits {
			*l = saved[i]
		}
		if err != nil {
			if p.Format == FormatLegacy && strings.Contains(err.Error(), "samples in a legacy text profile") {
				return
			}
			t.Fatalf("read whole, but not within bounds: %v", err)
		}
		check(t, q)
		if q.Samples+q.SamplesDropped != p.Samples || q.Samples > 2 {
			t.Fatalf("%d samples kept and %d dropped of %d", q.Samples, q.SamplesDropped, p.Samples)
		}
		if q.TotalAllocBytes != p.TotalAllocBytes || q.TotalInuseBytes != p.TotalInuseBytes ||
			q.TotalAllocObjects != p.TotalAllocObjects || q.TotalInuseObjects != p.TotalInuseObjects {
			t.Fatalf("totals changed by dropping samples: %+v, %+v", q, p)
		}
	})
}

func check(t *testing.T, p *Profile) {
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
}
