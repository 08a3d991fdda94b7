package heapprof

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	httppprof "net/http/pprof"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

// scratch is a directory shared by the tests that build and run programs;
// TestMain removes it.
var scratch string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "heapprof-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scratch = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goTool returns the path of the go command, skipping the test when there
// is none.
func goTool(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("go command not found")
	}
	return p
}

// readFile reads a profile from disk.
func readFile(tb testing.TB, path string) *Profile {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	p, err := Read(f, filepath.Base(path))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

var (
	buildOnce = map[string]*sync.Once{}
	buildMu   sync.Mutex
	buildErr  = map[string]error{}
)

// buildProgram builds the main package in testdata/NAME once per test run
// and returns the binary's path.
func buildProgram(tb testing.TB, name string) string {
	tb.Helper()
	gobin := goTool(tb)
	buildMu.Lock()
	once := buildOnce[name]
	if once == nil {
		once = new(sync.Once)
		buildOnce[name] = once
	}
	buildMu.Unlock()
	bin := filepath.Join(scratch, name)
	once.Do(func() {
		cmd := exec.Command(gobin, "build", "-o", bin, "./testdata/"+name)
		out, err := cmd.CombinedOutput()
		if err != nil {
			err = fmt.Errorf("go build ./testdata/%s: %v\n%s", name, err, out)
		}
		buildMu.Lock()
		buildErr[name] = err
		buildMu.Unlock()
	})
	buildMu.Lock()
	err := buildErr[name]
	buildMu.Unlock()
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// markerLine returns the line of file marked with the comment
// "// problem:NAME".
func markerLine(t *testing.T, file, name string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, ln := range strings.Split(string(data), "\n") {
		if strings.HasSuffix(strings.TrimSpace(ln), "// problem:"+name) {
			return i + 1
		}
	}
	t.Fatalf("%s: no marker for %s", file, name)
	return 0
}

// TestScenarios runs each problem program of testdata/scenarios and its fix
// with runtime.MemProfileRate = 1, and checks that the problem line tops the
// profile and that the fix makes it drop out of the top.
func TestScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs programs")
	}
	bin := buildProgram(t, "scenarios")
	tests := []struct {
		name, file string
		via        string // expected Via of the top site
		shrink     int64  // the fix cuts total allocation at least this much
	}{
		{"bigbuf", "bigbuf.go", "", 20},
		{"copy", "copy.go", "io.copyBuffer", 100},
		{"append", "append.go", "", 4},
		{"concat", "append.go", "", 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, err := filepath.Abs(filepath.Join("testdata/scenarios", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			line := markerLine(t, src, tt.name)
			run := func(fix bool) *Profile {
				out := filepath.Join(t.TempDir(), "allocs.pprof")
				args := []string{"-case", tt.name, "-o", out}
				if fix {
					args = append(args, "-fix")
				}
				if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
					t.Fatalf("%s %v: %v\n%s", bin, args, err, b)
				}
				return readFile(t, out)
			}
			bad, good := run(false), run(true)

			top := bad.Sites(SiteOptions{N: 3})
			if len(top) == 0 {
				t.Fatal("no sites")
			}
			s := top[0]
			if s.File != src || s.Line != line {
				t.Fatalf("top site %s (%s), want %s:%d", s.Pos(), s.Function, src, line)
			}
			if !s.User || s.Via != tt.via {
				t.Errorf("top site user=%v via=%q, want user via %q", s.User, s.Via, tt.via)
			}
			if s.Share < 0.9 {
				t.Errorf("top site has %.1f%% of allocation, want ≥ 90%%", 100*s.Share)
			}
			if s.ShortLived() < 0.9 {
				t.Errorf("top site short-lived share %.2f, want ≥ 0.9", s.ShortLived())
			}
			if len(s.Stack) < 2 || !strings.HasPrefix(s.Stack[len(s.Stack)-1].Function, "runtime.") {
				t.Errorf("stack %v does not reach runtime.main", s.Stack)
			}
			for _, g := range good.Sites(SiteOptions{N: 5}) {
				if g.File == src && g.Line == line {
					t.Errorf("fixed program still has %s among its top sites (%d bytes)", g.Pos(), g.AllocBytes)
				}
			}
			if good.TotalAllocBytes*tt.shrink > bad.TotalAllocBytes {
				t.Errorf("fix allocates %d bytes, problem %d: want %d× less", good.TotalAllocBytes, bad.TotalAllocBytes, tt.shrink)
			}
			if bad.Period != 1 {
				t.Errorf("period %d, want 1 (MemProfileRate = 1)", bad.Period)
			}
		})
	}
}

// TestAttribution checks the three ways to charge samples on a checked-in
// profile of testdata/scenarios -case copy.
func TestAttribution(t *testing.T) {
	p := readFile(t, "testdata/profiles/copy.pprof")
	user := p.Sites(SiteOptions{N: 1})[0]
	flat := p.Sites(SiteOptions{N: 1, Attribution: AttrFlat})[0]
	cum := p.Sites(SiteOptions{N: 1, Attribution: AttrCumulative})[0]
	if user.Function != "main.copyCase" || user.Via != "io.copyBuffer" || filepath.Base(user.File) != "copy.go" {
		t.Errorf("user site %s %s via %s", user.Function, user.Pos(), user.Via)
	}
	if flat.Function != "io.copyBuffer" || flat.Via != "" {
		t.Errorf("flat site %s via %q, want io.copyBuffer", flat.Function, flat.Via)
	}
	// The user line also boxes the reader and writer into interfaces.
	if flat.AllocBytes > user.AllocBytes || flat.AllocBytes < user.AllocBytes*99/100 || math.Abs(flat.AvgSize-32<<10) > 32<<10/100 {
		t.Errorf("flat %d bytes avg %.0f, user %d bytes", flat.AllocBytes, flat.AvgSize, user.AllocBytes)
	}
	// Every sample passes through main.main and runtime.main.
	if cum.AllocBytes < user.AllocBytes || !strings.HasPrefix(cum.Function, "runtime.main") && cum.Function != "main.main" {
		t.Errorf("cum top %s %d bytes", cum.Function, cum.AllocBytes)
	}
	// Charging each sample once, user and flat sites add up to the total.
	for _, a := range []Attribution{AttrUser, AttrFlat} {
		var sum int64
		for _, s := range p.Sites(SiteOptions{Attribution: a}) {
			sum += s.AllocBytes
		}
		if sum != p.TotalAllocBytes {
			t.Errorf("attribution %d: sites add up to %d, total %d", a, sum, p.TotalAllocBytes)
		}
	}
	// A predicate that claims nothing charges every sample to its leaf.
	none := p.Sites(SiteOptions{N: 1, User: func(string) bool { return false }})[0]
	if none.Function != flat.Function || none.User {
		t.Errorf("no user code: top %s user=%v", none.Function, none.User)
	}
	b, o := PerOp(user, 2000)
	if b < 32<<10 || o < 1 {
		t.Errorf("PerOp = %.0f bytes, %.1f objects per copy", b, o)
	}
}

func TestTopCut(t *testing.T) {
	p := readFile(t, "testdata/profiles/nethttp-clientserver.pprof")
	all := p.Top(SiteOptions{User: UserModules("net/http")})
	top := p.Top(SiteOptions{N: 5, User: UserModules("net/http")})
	if len(top.Sites) != 5 || top.Total != len(all.Sites) || top.Dropped != top.Total-5 {
		t.Fatalf("top 5 of %d: %d sites, %d dropped", len(all.Sites), len(top.Sites), top.Dropped)
	}
	var dropped int64
	for _, s := range all.Sites[5:] {
		dropped += s.AllocBytes
	}
	if top.DroppedSum != dropped || top.DroppedMax != all.Sites[5].AllocBytes {
		t.Errorf("dropped sum %d max %d, want %d %d", top.DroppedSum, top.DroppedMax, dropped, all.Sites[5].AllocBytes)
	}
	if !strings.Contains(top.String(), fmt.Sprintf("dropped %d sites", top.Dropped)) {
		t.Errorf("summary %q", top)
	}
	for i, s := range top.Sites {
		if !strings.HasPrefix(s.Function, "net/http.") && !strings.HasPrefix(s.Function, "net/http_test.") {
			t.Errorf("site %d: %s is not in net/http", i, s.Function)
		}
		if i > 0 && s.AllocBytes > top.Sites[i-1].AllocBytes {
			t.Errorf("site %d out of order", i)
		}
	}
	objs := p.Sites(SiteOptions{N: 3, Sort: ByAllocObjects})
	for i := 1; i < len(objs); i++ {
		if objs[i].AllocObjects > objs[i-1].AllocObjects {
			t.Errorf("by objects: site %d out of order", i)
		}
	}
}

func TestDiff(t *testing.T) {
	base := readFile(t, "testdata/profiles/copy.pprof")
	fixed := readFile(t, "testdata/profiles/copy-fix.pprof")
	d := Diff(base, fixed, SiteOptions{N: 3})
	if len(d) == 0 || d[0].Function != "main.copyCase" || d[0].New.AllocBytes != 0 || d[0].DeltaBytes >= 0 {
		t.Fatalf("first change %+v", d[0])
	}
	if -d[0].DeltaBytes != d[0].Base.AllocBytes {
		t.Errorf("delta %d, base %d", d[0].DeltaBytes, d[0].Base.AllocBytes)
	}
}

// TestLegacyCompiler reads the compiler's -memprofile, which is the legacy
// text format with symbols only in comments.
func TestLegacyCompiler(t *testing.T) {
	p := readFile(t, "testdata/profiles/compile-strconv.legacy")
	checkLegacyCompiler(t, p)
}

func checkLegacyCompiler(t *testing.T, p *Profile) {
	t.Helper()
	if p.Format != FormatLegacy || !p.HasAlloc || !p.HasInuse || p.Period <= 0 {
		t.Fatalf("format %s alloc=%v inuse=%v period %d", p.Format, p.HasAlloc, p.HasInuse, p.Period)
	}
	found := false
	for _, s := range p.Sites(SiteOptions{Attribution: AttrFlat}) {
		if strings.HasPrefix(s.Function, "cmd/compile/internal/") && s.Line > 0 && strings.HasSuffix(s.File, ".go") {
			found = true
		}
	}
	if !found {
		t.Error("no symbolized compiler site")
	}
	if p.Unsymbolized > p.Samples/2 {
		t.Errorf("%d of %d samples unsymbolized", p.Unsymbolized, p.Samples)
	}
}

// TestRealProfiles generates profiles with the real toolchain: benchmarks
// of encoding/json and net/http, and the compiler's own heap profile.
func TestRealProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	gobin := goTool(t)
	tests := []struct {
		name string
		args []string
		user func(string) bool
		pkg  string // the top user site must be in this package
	}{
		{"json", []string{"test", "-run=^$", "-bench=Code", "-benchtime=100ms", "-memprofile=PROF", "-o=BIN", "encoding/json"}, UserModules("encoding/json"), "encoding/json"},
		{"nethttp", []string{"test", "-run=^$", "-bench=BenchmarkClientServer$", "-benchtime=100ms", "-memprofile=PROF", "-o=BIN", "net/http"}, UserModules("net/http"), "net/http"},
		{"compile", []string{"build", "-o=BIN", "-gcflags=-memprofile=PROF", "strconv"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			prof := filepath.Join(dir, "mem.prof")
			var args []string
			for _, a := range tt.args {
				a = strings.Replace(a, "PROF", prof, 1)
				a = strings.Replace(a, "BIN", filepath.Join(dir, "bin"), 1)
				args = append(args, a)
			}
			cmd := exec.Command(gobin, args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			p := readFile(t, prof)
			if tt.name == "compile" {
				checkLegacyCompiler(t, p)
				return
			}
			if p.Format != FormatProto || p.Samples == 0 || p.TotalAllocBytes <= 0 || p.Period != 512<<10 {
				t.Fatalf("format %s, %d samples, %d bytes, period %d", p.Format, p.Samples, p.TotalAllocBytes, p.Period)
			}
			top := p.Sites(SiteOptions{N: 10, User: tt.user})
			if len(top) == 0 || strings.TrimSuffix(PackagePath(top[0].Function), "_test") != tt.pkg {
				t.Fatalf("top site %+v", top)
			}
			for _, s := range top {
				if s.Share <= 0 || s.Share > 1 || s.AvgSize <= 0 {
					t.Errorf("%s: share %v avg %v", s.Function, s.Share, s.AvgSize)
				}
			}
		})
	}
}

//go:noinline
func liveAllocate(n int) [][]byte {
	var keep [][]byte
	for i := range n {
		b := make([]byte, 256<<10) // liveAllocate
		if i%8 == 0 {
			keep = append(keep, b)
		}
	}
	return keep
}

// TestLiveServer fetches profiles from net/http/pprof handlers in this
// process, in both the protocol buffer and the debug=1 text form.
func TestLiveServer(t *testing.T) {
	keep := liveAllocate(400) // 100 MB, about 200 samples at the default rate
	runtime.GC()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", httppprof.Index)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	_, self, _, _ := runtime.Caller(0)
	for _, path := range []string{"/debug/pprof/heap", "/debug/pprof/allocs", "/debug/pprof/heap?debug=1", "/debug/pprof/allocs?debug=1"} {
		t.Run(path, func(t *testing.T) {
			resp, err := srv.Client().Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("GET %s: %v %s", path, err, resp.Status)
			}
			if *update && path == "/debug/pprof/heap?debug=1" {
				if err := os.WriteFile("testdata/profiles/live-heap-debug1.txt", data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p, err := Read(bytes.NewReader(data), path)
			if err != nil {
				t.Fatal(err)
			}
			wantFormat := FormatProto
			if strings.Contains(path, "debug=1") {
				wantFormat = FormatLegacy
			}
			if p.Format != wantFormat {
				t.Errorf("format %s, want %s", p.Format, wantFormat)
			}
			checkLiveSite(t, p, self)
		})
	}
	runtime.KeepAlive(keep)
}

// checkLiveSite checks that liveAllocate's make line is charged with about
// 100 MB when the test package counts as the user's code.
func checkLiveSite(t *testing.T, p *Profile, self string) {
	t.Helper()
	user := UserModules("github.com/gcdoctor/gcdoctor/heapprof")
	for _, s := range p.Sites(SiteOptions{User: user}) {
		if s.Function == "github.com/gcdoctor/gcdoctor/heapprof.liveAllocate" {
			if s.File != self || s.AllocBytes < 50<<20 || s.InuseBytes <= 0 || s.InuseBytes >= s.AllocBytes {
				t.Errorf("liveAllocate site %s: alloc %d inuse %d", s.Pos(), s.AllocBytes, s.InuseBytes)
			}
			return
		}
	}
	t.Errorf("liveAllocate not among the sites of %s", p.Name)
}

func TestLegacyLiveCapture(t *testing.T) {
	p := readFile(t, "testdata/profiles/live-heap-debug1.txt")
	if p.Format != FormatLegacy || p.Unsymbolized > 0 && p.Unsymbolized == p.Samples {
		t.Fatalf("format %s, %d of %d unsymbolized", p.Format, p.Unsymbolized, p.Samples)
	}
	found := false
	for _, s := range p.Sites(SiteOptions{User: UserModules("github.com/gcdoctor/gcdoctor/heapprof")}) {
		if strings.HasSuffix(s.Function, ".liveAllocate") && filepath.Base(s.File) == "heapprof_test.go" && s.Line > 0 {
			found = true
		}
	}
	if !found {
		t.Error("liveAllocate not found in the saved capture")
	}
}

func TestNotHeap(t *testing.T) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Skip("cpu profiler busy:", err)
	}
	time.Sleep(20 * time.Millisecond)
	pprof.StopCPUProfile()
	_, err := Read(&buf, "cpu.pprof")
	want := "cpu.pprof: a CPU profile, not a heap profile: sample types samples/count, cpu/nanoseconds"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}

	buf.Reset()
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	_, err = Read(&buf, "goroutine.pprof")
	if err == nil || !strings.Contains(err.Error(), "a goroutine profile, not a heap profile: sample types goroutine/count") {
		t.Errorf("goroutine profile: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	data, err := os.ReadFile("testdata/profiles/copy.pprof")
	if err != nil {
		t.Fatal(err)
	}
	// Rewrite uncompressed so that truncation hits the deflate stream
	// at a known place.
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(zr)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "x.pprof: empty profile"},
		{"truncated", data[:len(data)/2], "x.pprof: truncated gzip data"},
		{"truncated-trailer", data[:len(data)-4], "x.pprof: truncated gzip data"},
		{"header-only", data[:10], "x.pprof: truncated gzip data"},
		{"text", []byte("hello, world\n"), "x.pprof: not a readable profile"},
		{"raw-truncated", raw[:len(raw)/3], "x.pprof: not a readable profile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tt.data), "x.pprof")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want prefix %q", err, tt.want)
			}
		})
	}
	if p, err := Read(bytes.NewReader(raw), "raw.pprof"); err != nil || p.Samples == 0 {
		t.Errorf("uncompressed protocol buffer: %v", err)
	}
}

func TestPackagePath(t *testing.T) {
	tests := []struct {
		fn, pkg  string
		std, dep bool
	}{
		{"io.copyBuffer", "io", true, true},
		{"net/http.(*conn).serve", "net/http", true, true},
		{"runtime.growslice", "runtime", true, true},
		{"internal/bytealg.MakeNoZero", "internal/bytealg", true, true},
		{"vendor/golang.org/x/net/http2/hpack.(*Decoder).Write", "vendor/golang.org/x/net/http2/hpack", true, true},
		{"main.main", "main", false, false},
		{"main.(*server).handle.func1", "main", false, false},
		{"golang.org/x/net/http2.(*Framer).ReadFrame", "golang.org/x/net/http2", false, true},
		{"github.com/a/b.F[go.shape.int]", "github.com/a/b", false, false},
		{"github.com/a/b/c.(*T[...]).M", "github.com/a/b/c", false, false},
		{"github.com/a/b.G[github.com/x/y.T]", "github.com/a/b", false, false},
		{"example.com/m/vendor/github.com/x/y.F", "example.com/m/vendor/github.com/x/y", false, true},
		{"", "", false, false},
	}
	for _, tt := range tests {
		if got := PackagePath(tt.fn); got != tt.pkg {
			t.Errorf("PackagePath(%q) = %q, want %q", tt.fn, got, tt.pkg)
		}
		if got := IsStd(tt.fn); got != tt.std {
			t.Errorf("IsStd(%q) = %v", tt.fn, got)
		}
		if got := IsDependency(tt.fn); got != tt.dep {
			t.Errorf("IsDependency(%q) = %v", tt.fn, got)
		}
	}
	deps := NotDependencies("github.com/x/y")
	if deps("github.com/x/y/z.F") || !deps("github.com/x/yy.F") || !deps("main.f") {
		t.Error("NotDependencies")
	}
	mod := UserModules("github.com/a/b")
	if !mod("github.com/a/b.F") || !mod("github.com/a/b/c.F") || mod("github.com/a/bc.F") || mod("main.main") {
		t.Error("UserModules")
	}
}

// TestGolden renders the top sites of every checked-in profile and compares
// them with testdata/golden.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/profiles/*")
	if len(files) == 0 {
		t.Fatal("no profiles")
	}
	for _, file := range files {
		name := filepath.Base(file)
		if name == "live-heap-debug1.txt" {
			continue // its numbers depend on the test process
		}
		t.Run(name, func(t *testing.T) {
			p := readFile(t, file)
			got := render(p)
			golden := filepath.Join("testdata/golden", name+".top")
			if *update {
				if err := os.MkdirAll("testdata/golden", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if string(want) != got {
				t.Errorf("output differs from %s (run with -update to accept):\n%s", golden, got)
			}
		})
	}
}

// render prints the summary and the top sites by each attribution, with
// file names reduced to their last two elements so the output does not
// depend on where the profile was recorded.
func render(p *Profile) string {
	var b strings.Builder
	var types []string
	for _, st := range p.SampleTypes {
		types = append(types, st.String())
	}
	fmt.Fprintf(&b, "format %s; sample types %s; period %d %s\n", p.Format, strings.Join(types, ", "), p.Period, p.PeriodType)
	fmt.Fprintf(&b, "alloc %d bytes %d objects; inuse %d bytes %d objects; %d samples, %d without stack, %d unsymbolized\n",
		p.TotalAllocBytes, p.TotalAllocObjects, p.TotalInuseBytes, p.TotalInuseObjects, p.Samples, p.EmptyStacks, p.Unsymbolized)
	for _, a := range []struct {
		name string
		opts SiteOptions
	}{
		{"user", SiteOptions{N: 8}},
		{"user by objects", SiteOptions{N: 5, Sort: ByAllocObjects}},
		{"flat", SiteOptions{N: 5, Attribution: AttrFlat}},
		{"cum", SiteOptions{N: 5, Attribution: AttrCumulative}},
	} {
		top := p.Top(a.opts)
		fmt.Fprintf(&b, "\n%s: %s\n", a.name, top)
		for _, s := range top.Sites {
			via := ""
			if s.Via != "" {
				via = " via " + s.Via
			}
			fmt.Fprintf(&b, "%12d %10d %12d %10d %6.2f%% %5.1f%% %9.1f  %s %s:%d%s\n",
				s.AllocBytes, s.AllocObjects, s.InuseBytes, s.InuseObjects, 100*s.Share, 100*s.ShortLived(), s.AvgSize,
				s.Function, shortPath(s.File), s.Line, via)
		}
	}
	return b.String()
}

func shortPath(p string) string {
	p = filepath.ToSlash(p)
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		if j := strings.LastIndexByte(p[:i], '/'); j >= 0 {
			return p[j+1:]
		}
	}
	return p
}

// TestLines checks the bytes allocated through each line of a real
// profile (go test -memprofile of an io.Copy): a site's line carries at
// least the site's bytes, since every sample charged to the site passes
// through it, and no line more than the profile's total.
func TestLines(t *testing.T) {
	f, err := os.Open("testdata/profiles/copy.pprof")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Read(f, "copy.pprof")
	if err != nil {
		t.Fatal(err)
	}
	lines := p.Lines()
	at := map[string]Line{}
	for i, l := range lines {
		if i > 0 && l.AllocBytes > lines[i-1].AllocBytes {
			t.Fatalf("line %d (%d bytes) after a lighter one", i, l.AllocBytes)
		}
		if l.AllocBytes > p.TotalAllocBytes || l.Share > 1 {
			t.Errorf("%s:%d: %d bytes (%.2f) of %d", l.File, l.Line, l.AllocBytes, l.Share, p.TotalAllocBytes)
		}
		at[fmt.Sprintf("%s:%d", l.File, l.Line)] = l
	}
	sites := p.Sites(SiteOptions{})
	if len(sites) == 0 {
		t.Fatal("no sites")
	}
	for _, s := range sites {
		if l, ok := at[s.Pos()]; s.Line > 0 && (!ok || l.AllocBytes < s.AllocBytes) {
			t.Errorf("site %s (%d bytes): line %+v", s.Pos(), s.AllocBytes, l)
		}
	}
}
