package heapprof

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// setLimit lowers one of the package's bounds for the test.
func setLimit[T any](t *testing.T, p *T, v T) {
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}

func gz(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestGzipBomb checks that a profile expanding beyond MaxDecompressed is
// refused without holding what it expands to.
func TestGzipBomb(t *testing.T) {
	setLimit(t, &MaxDecompressed, 8<<20)
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"zeros", gz(t, make([]byte, 64<<20)), "bomb.pb.gz: decompressed profile exceeds 8 MiB; refusing (a gzip bomb?)"},
		{"gzip-in-gzip", gz(t, gz(t, make([]byte, 1<<20))), "bomb.pb.gz: gzip data inside gzip data: not a profile"},
		{"plain", make([]byte, 9<<20), "bomb.pb.gz: data is not a pprof profile"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = Read(bytes.NewReader(tt.data), "bomb.pb.gz") })
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
			if tt.name == "zeros" && n > 2<<20 {
				t.Errorf("refusing a bomb allocated %d bytes", n)
			}
		})
	}
	// Just under the cap is read.
	raw := profileBytes(t, 3, 2, false)
	setLimit(t, &MaxDecompressed, int64(len(raw)))
	if _, err := Read(bytes.NewReader(gz(t, raw)), "ok.pb.gz"); err != nil {
		t.Errorf("a profile of exactly MaxDecompressed bytes: %v", err)
	}
	if _, err := Read(bytes.NewReader(append(raw, 0x0a, 0)), "over.pb"); err == nil || !strings.Contains(err.Error(), "profile exceeds 0 MiB; refusing") {
		t.Errorf("an uncompressed profile beyond MaxDecompressed: %v", err)
	}
}

// endless yields zeros forever and counts what was read.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.n += int64(len(p))
	return len(p), nil
}

// TestRefuseEarly checks that what is not a profile is refused from its
// first bytes, as /dev/zero must be.
func TestRefuseEarly(t *testing.T) {
	z := &endless{}
	_, err := Read(z, "/dev/zero")
	if err == nil || err.Error() != "/dev/zero: data is not a pprof profile (it starts with 00 00 00 00 00 00 00 00)" {
		t.Errorf("err %v", err)
	}
	if z.n > sniffLen {
		t.Errorf("read %d bytes of an endless stream before refusing it", z.n)
	}
	for _, tt := range []struct{ in, want string }{
		{"go 1.23 trace\x00\x00\x00\x01\x02", "t: data is a Go execution trace, not a heap profile: read it with gcdoctor trace"},
		{"\xff\xff\xff\xff", "t: data is not a pprof profile (it starts with ff ff ff ff)"},
		{"gc 1 @0.1s 1%: 0.1+1+0.1 ms clock, 0.2+0.1/1/0+0.2 ms cpu\n", "t: not a readable profile: it is a gctrace log; read it with gcdoctor gctrace"},
		{"hello, world\n", "t: not a readable profile: parsing profile: unrecognized profile format"},
	} {
		_, err := Read(strings.NewReader(tt.in), "t")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: err %v, want %q", tt.in, err, tt.want)
		}
	}
}

// profileBytes builds an uncompressed allocs profile of n samples, sample
// i allocating i+1 KiB with a stack of depth distinct locations, and as
// many unused locations again.
func profileBytes(t testing.TB, n, depth int, unused bool) []byte {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}, {Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:     512 * 1024,
	}
	id := uint64(0)
	loc := func(name string) *profile.Location {
		id++
		fn := &profile.Function{ID: id, Name: name, Filename: "/src/app/main.go"}
		l := &profile.Location{ID: id, Address: 0x1000 + id, Line: []profile.Line{{Function: fn, Line: int64(id)}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, l)
		return l
	}
	for i := range n {
		s := &profile.Sample{Value: []int64{1, int64(i+1) << 10, 0, int64(i)}}
		for d := range depth {
			s.Location = append(s.Location, loc(fmt.Sprintf("example.com/app.f%d_%d", i, d)))
		}
		p.Sample = append(p.Sample, s)
		if unused {
			loc(fmt.Sprintf("example.com/app.unused%d", i))
		}
	}
	var buf bytes.Buffer
	if err := p.WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSampleBound checks that a profile of more samples than MaxSamples
// is read as its heaviest samples, with totals that still count them all.
func TestSampleBound(t *testing.T) {
	raw := profileBytes(t, 50, 3, true)
	full, err := Read(bytes.NewReader(raw), "full.pb")
	if err != nil {
		t.Fatal(err)
	}
	if full.SamplesDropped != 0 || len(full.Caveats) != 0 {
		t.Fatalf("nothing should be dropped with the default bounds: %d, %q", full.SamplesDropped, full.Caveats)
	}
	tests := []struct {
		name              string
		maxSamples, depth int
		kept              int
	}{
		{"samples", 10, 1000, 10},
		{"frames", 1000, 31, 10}, // ten stacks of three frames
		{"both", 7, 30, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setLimit(t, &MaxSamples, tt.maxSamples)
			setLimit(t, &MaxStackFrames, tt.depth)
			p, err := Read(bytes.NewReader(gz(t, raw)), "big.pb.gz")
			if err != nil {
				t.Fatal(err)
			}
			if p.Samples != tt.kept || p.SamplesDropped != 50-tt.kept || p.DroppedBy != "alloc_space" {
				t.Fatalf("kept %d, dropped %d by %q; want %d, %d by alloc_space", p.Samples, p.SamplesDropped, p.DroppedBy, tt.kept, 50-tt.kept)
			}
			if p.TotalAllocBytes != full.TotalAllocBytes || p.TotalInuseBytes != full.TotalInuseBytes || p.TotalAllocObjects != full.TotalAllocObjects {
				t.Errorf("totals %d/%d/%d, want %d/%d/%d", p.TotalAllocBytes, p.TotalInuseBytes, p.TotalAllocObjects, full.TotalAllocBytes, full.TotalInuseBytes, full.TotalAllocObjects)
			}
			// The heaviest samples are the last ones.
			top := p.Top(SiteOptions{N: 3})
			for i, s := range top.Sites {
				if want := fmt.Sprintf("example.com/app.f%d_0", 49-i); s.Function != want {
					t.Errorf("site %d: %s, want %s", i, s.Function, want)
				}
				if s.Share != full.Top(SiteOptions{N: 3}).Sites[i].Share {
					t.Errorf("site %d: share %v differs from the full read's", i, s.Share)
				}
			}
			if top.ProfileSum != full.TotalAllocBytes || top.SamplesDropped != p.SamplesDropped {
				t.Errorf("profile sum %d, want %d", top.ProfileSum, full.TotalAllocBytes)
			}
			if !strings.Contains(top.String(), fmt.Sprintf("; %d lightest samples not read (alloc_space ", p.SamplesDropped)) {
				t.Errorf("header %q does not admit the dropped samples", top)
			}
			if len(p.Caveats) != 1 || !strings.HasPrefix(p.Caveats[0], fmt.Sprintf("%d of the profile's 50 samples were read, the heaviest by alloc_space", tt.kept)) {
				t.Errorf("warnings %q", p.Caveats)
			}
			// Locations of dropped samples, and unused ones, are gone.
			if len(p.frames) != 3*tt.kept {
				t.Errorf("%d frames kept for %d samples of 3", len(p.frames), tt.kept)
			}
		})
	}
}

func TestStringBound(t *testing.T) {
	raw := profileBytes(t, 20, 2, false)
	setLimit(t, &MaxStrings, 10)
	_, err := Read(bytes.NewReader(raw), "s.pb")
	if err == nil || !strings.Contains(err.Error(), "s.pb: ") || !strings.Contains(err.Error(), "strings in the profile's string table, more than the 10 this reader takes") {
		t.Errorf("err %v", err)
	}
}

func TestLegacySampleBound(t *testing.T) {
	var b strings.Builder
	b.WriteString("heap profile: 3: 300 [3: 300] @ heap/1048576\n")
	for i := range 3 {
		fmt.Fprintf(&b, "1: 100 [1: 100] @ 0x%x\n#\t0x%x\tmain.f%d+0x1\t/x.go:%d\n\n", 0x1000+i, 0x1000+i, i, i+1)
	}
	setLimit(t, &MaxSamples, 2)
	_, err := Read(strings.NewReader(b.String()), "l.txt")
	if err == nil || err.Error() != "l.txt: 3 samples in a legacy text profile, more than the 2 this reader takes: write the profile with debug=0" {
		t.Errorf("err %v", err)
	}
}

// TestBigProfileMemory reads a profile of many more samples than
// MaxSamples and checks that what it allocates follows what is kept, not
// what the input holds.
func TestBigProfileMemory(t *testing.T) {
	raw := gz(t, profileBytes(t, 20000, 4, false))
	setLimit(t, &MaxSamples, 1000)
	var p *Profile
	var err error
	n := allocated(func() { p, err = Read(bytes.NewReader(raw), "big.pb.gz") })
	if err != nil {
		t.Fatal(err)
	}
	full := allocated(func() {
		setLimit(t, &MaxSamples, 100000)
		_, err = Read(bytes.NewReader(raw), "big.pb.gz")
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("read %d of %d samples: %d KiB allocated, %d KiB for all", p.Samples, p.Samples+p.SamplesDropped, n>>10, full>>10)
	if n*3 > full {
		t.Errorf("keeping 1000 of 20000 samples allocated %d KiB, reading all %d KiB", n>>10, full>>10)
	}
}
