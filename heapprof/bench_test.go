package heapprof

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// benchProfile is the largest checked-in real profile: net/http's
// BenchmarkClientServer.
const benchProfile = "testdata/profiles/nethttp-clientserver.pprof"

func BenchmarkRead(b *testing.B) {
	data, err := os.ReadFile(benchProfile)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench.pprof"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSites measures the in-process analysis a `pprof -top` does:
// read the file and rank the top 10 sites.
func BenchmarkSites(b *testing.B) {
	data, err := os.ReadFile(benchProfile)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		opts SiteOptions
	}{
		{"user", SiteOptions{N: 10}},
		{"flat", SiteOptions{N: 10, Attribution: AttrFlat}},
		{"cum", SiteOptions{N: 10, Attribution: AttrCumulative}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := Read(bytes.NewReader(data), "bench.pprof")
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Sites(bc.opts)) == 0 {
					b.Fatal("no sites")
				}
			}
		})
	}
}

// BenchmarkPprofTop runs `go tool pprof -top -sample_index=alloc_space` on
// the same profile, the reference BenchmarkSites and BenchmarkTopBinary are
// compared with. "direct" runs the pprof binary without the go command in
// front of it.
func BenchmarkPprofTop(b *testing.B) {
	gobin := goTool(b)
	out, err := exec.Command(gobin, "tool", "-n", "pprof").Output()
	if err != nil {
		b.Skip("go tool -n pprof:", err)
	}
	pprofBin := string(bytes.TrimSpace(out))
	args := []string{"-top", "-sample_index=alloc_space", benchProfile}
	b.Run("go-tool", func(b *testing.B) {
		for b.Loop() {
			if out, err := exec.Command(gobin, append([]string{"tool", "pprof"}, args...)...).CombinedOutput(); err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		if _, err := os.Stat(pprofBin); err != nil {
			b.Skip("pprof binary not built:", err)
		}
		for b.Loop() {
			if out, err := exec.Command(pprofBin, args...).CombinedOutput(); err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
		}
	})
}

// BenchmarkTopBinary runs testdata/top, a small program printing the top
// sites, so that process start-up counts as it does for pprof.
func BenchmarkTopBinary(b *testing.B) {
	bin := buildProgram(b, "top")
	for b.Loop() {
		if out, err := exec.Command(bin, benchProfile).CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
}
