package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func intPtr(i int) *int { return &i }

func sampleMeta() *Meta {
	return &Meta{
		SchemaVersion:          SchemaVersion,
		Created:                time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		ToolVersion:            "v0.1.0",
		Command:                []string{"./server", "-port", "8080"},
		ExitCode:               intPtr(137),
		Start:                  time.Date(2026, 3, 1, 11, 59, 0, 500, time.UTC),
		DurationMS:             60000.25,
		GoVersion:              "go1.26.8",
		GOGC:                   "200",
		GOMEMLIMIT:             "1GiB",
		GOMAXPROCS:             "",
		GODEBUG:                "madvdontneed=1,gctrace=1",
		NumCPU:                 8,
		CgroupMemoryLimitBytes: 2 << 30,
		CgroupCPULimit:         1.5,
		PeakRSSBytes:           123456789,
		Files: map[string]string{
			GCTraceFile: "standard error with gctrace lines",
			RSSFile:     "resident set size samples",
		},
	}
}

var sampleRSS = []RSSSample{
	{Elapsed: 0, RSS: 4096},
	{Elapsed: 100 * time.Millisecond, RSS: 10 << 20},
	{Elapsed: 200*time.Millisecond + 123456*time.Nanosecond, RSS: 25 << 20},
	{Elapsed: 3 * time.Hour, RSS: 1 << 40},
}

const sampleTrace = "gc 1 @0.012s 2%: 0.01+1.2+0.02 ms clock, 0.1+0.3/1.1/0.2+0.2 ms cpu, 4->4->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 8 P\nprogram output\n"

// writeSample makes a complete bundle directory and returns its path.
func writeSample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run-1")
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := w.Create(GCTraceFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, sampleTrace); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = w.Create("profiles/heap.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not really a profile")
	f.Close()
	if err := w.WriteRSS(sampleRSS); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteMeta(sampleMeta()); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readAll(t *testing.T, b *Bundle, name string) string {
	t.Helper()
	rc, err := b.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestRoundTrip(t *testing.T) {
	dir := writeSample(t)
	tmp := t.TempDir()
	tarGz := filepath.Join(tmp, "run.tar.gz")
	if err := WriteTarGz(dir, tarGz); err != nil {
		t.Fatal(err)
	}
	tgz := filepath.Join(tmp, "RUN.TGZ")
	if err := WriteTarGz(dir, tgz); err != nil {
		t.Fatal(err)
	}
	// An archive made with "tar czf x.tgz -C dir ." has no top directory.
	flat := filepath.Join(tmp, "flat.tgz")
	os.WriteFile(flat, makeTarGz(t,
		entry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: "./"}},
		entry{hdr: tar.Header{Name: "./" + GCTraceFile}, body: sampleTrace},
		entry{hdr: tar.Header{Name: "./" + MetaFile}, body: mustEncodeMeta(t, sampleMeta())},
		entry{hdr: tar.Header{Name: "./" + RSSFile}, body: mustEncodeRSS(t, sampleRSS)},
		entry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: "./profiles/"}},
		entry{hdr: tar.Header{Name: "./profiles/heap.pb.gz"}, body: "not really a profile"},
	), 0o644)

	wantNames := []string{GCTraceFile, MetaFile, "profiles/heap.pb.gz", RSSFile}
	for _, path := range []string{dir, tarGz, tgz, flat} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			b, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if got := b.Names(); !reflect.DeepEqual(got, wantNames) {
				t.Errorf("Names() = %q, want %q", got, wantNames)
			}
			if got, want := b.Meta(), sampleMeta(); !metaEqual(got, want) {
				t.Errorf("Meta() = %+v, want %+v", got, want)
			}
			rss, err := b.RSS()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rss, sampleRSS) {
				t.Errorf("RSS() = %v, want %v", rss, sampleRSS)
			}
			if got := readAll(t, b, GCTraceFile); got != sampleTrace {
				t.Errorf("%s = %q, want %q", GCTraceFile, got, sampleTrace)
			}
			if !b.Has("profiles/heap.pb.gz") || b.Has("heap.pb.gz") || b.Has("profiles") {
				t.Errorf("Has gives wrong answers for %q", b.Names())
			}
		})
	}
}

// metaEqual compares metas by their JSON form, which is what round trips.
func metaEqual(a, b *Meta) bool {
	if a == nil || b == nil {
		return a == b
	}
	ja, err1 := encodeMeta(a)
	jb, err2 := encodeMeta(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

func mustEncodeMeta(t *testing.T, m *Meta) string {
	t.Helper()
	data, err := encodeMeta(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func mustEncodeRSS(t *testing.T, s []RSSSample) string {
	t.Helper()
	var buf bytes.Buffer
	if err := encodeRSS(&buf, s); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestMetaJSONKeys(t *testing.T) {
	data, err := encodeMeta(sampleMeta())
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{
		"schema_version", "created", "tool_version", "command", "exit_code",
		"start", "duration_ms", "go_version", "gogc", "gomemlimit", "gomaxprocs",
		"godebug", "num_cpu", "cgroup_memory_limit_bytes", "cgroup_cpu_limit",
		"peak_rss_bytes", "files",
	} {
		if !bytes.Contains(data, []byte(`"`+key+`":`)) {
			t.Errorf("meta.json lacks key %q:\n%s", key, data)
		}
	}
	// Unknown exit code and no command are left out rather than written as
	// zero values that would read as a clean exit.
	data, err = encodeMeta(&Meta{})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"exit_code", "command"} {
		if bytes.Contains(data, []byte(`"`+key+`"`)) {
			t.Errorf("meta.json of empty Meta has %q:\n%s", key, data)
		}
	}
	if !bytes.Contains(data, []byte(`"schema_version": 1`)) || !bytes.Contains(data, []byte(`"files": {}`)) {
		t.Errorf("empty Meta not completed with schema version and files:\n%s", data)
	}
}

func TestWriteMetaDoesNotModify(t *testing.T) {
	w, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &Meta{ToolVersion: "x"}
	if err := w.WriteMeta(m); err != nil {
		t.Fatal(err)
	}
	if m.SchemaVersion != 0 || m.Files != nil {
		t.Errorf("WriteMeta modified its argument: %+v", m)
	}
	if err := w.WriteMeta(nil); err == nil {
		t.Error("WriteMeta(nil) succeeded")
	}
	ents, _ := os.ReadDir(w.Dir())
	if len(ents) != 1 || ents[0].Name() != MetaFile {
		t.Errorf("bundle holds %v, want only %s (no temporary files)", ents, MetaFile)
	}
}

func TestCreate(t *testing.T) {
	tmp := t.TempDir()
	nonEmpty := filepath.Join(tmp, "full")
	os.Mkdir(nonEmpty, 0o755)
	os.WriteFile(filepath.Join(nonEmpty, "x"), nil, 0o644)
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)

	tests := []struct {
		dir     string
		wantErr string
	}{
		{filepath.Join(tmp, "new", "nested"), ""},
		{empty, ""},
		{nonEmpty, "directory is not empty"},
		{file, "not a directory"},
		{"", "empty directory name"},
	}
	for _, tt := range tests {
		w, err := Create(tt.dir)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("Create(%q): %v", tt.dir, err)
				continue
			}
			if fi, err := os.Stat(w.Dir()); err != nil || !fi.IsDir() {
				t.Errorf("Create(%q) made no directory: %v", tt.dir, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.dir) {
			t.Errorf("Create(%q) error = %v, want one naming the directory and %q", tt.dir, err, tt.wantErr)
		}
	}
}

func TestWriterCreateNames(t *testing.T) {
	w, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", ".", "..", "../x", "/etc/x", "a/../../x", "a//b", "a/"} {
		if f, err := w.Create(name); err == nil {
			f.Close()
			t.Errorf("Create(%q) succeeded", name)
		}
	}
	for _, name := range []string{"cpu.pprof", "profiles/heap.pb.gz", "a/b/c"} {
		f, err := w.Create(name)
		if err != nil {
			t.Errorf("Create(%q): %v", name, err)
			continue
		}
		f.Close()
		if _, err := os.Stat(w.Path(name)); err != nil {
			t.Errorf("Create(%q) made no file at Path: %v", name, err)
		}
	}
}

type entry struct {
	hdr    tar.Header
	body   string
	noBody bool // write the header only, as a truncated archive would
}

func makeTarGz(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	complete := true
	for _, e := range entries {
		h := e.hdr
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag == tar.TypeReg && h.Size == 0 {
			h.Size = int64(len(e.body))
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatalf("header %q: %v", h.Name, err)
		}
		if e.noBody {
			complete = false
			break
		}
		if _, err := io.WriteString(tw, e.body); err != nil {
			t.Fatalf("body %q: %v", h.Name, err)
		}
	}
	if complete {
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		tw.Flush()
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestOpenHostileArchive(t *testing.T) {
	ok := entry{hdr: tar.Header{Name: "gctrace.log"}, body: "gc 1 @0.1s\n"}
	tests := []struct {
		name    string
		entries []entry
		entry   string // the entry the error must name
		reason  string
	}{
		{"dotdot", []entry{ok, {hdr: tar.Header{Name: "../evil"}, body: "x"}}, "../evil", "escapes the bundle"},
		{"dotdot inside", []entry{{hdr: tar.Header{Name: "a/../../evil"}, body: "x"}}, "a/../../evil", "escapes the bundle"},
		{"dotdot harmless", []entry{{hdr: tar.Header{Name: "a/../b"}, body: "x"}}, "a/../b", "escapes the bundle"},
		{"dotdot dir", []entry{{hdr: tar.Header{Typeflag: tar.TypeDir, Name: "../d/"}}}, "../d/", "escapes the bundle"},
		{"absolute", []entry{{hdr: tar.Header{Name: "/etc/evil"}, body: "x"}}, "/etc/evil", "absolute path"},
		{"backslash", []entry{{hdr: tar.Header{Name: `..\evil`}, body: "x"}}, `..\\evil`, "backslash"},
		{"symlink", []entry{{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "meta.json", Linkname: "/etc/passwd"}}}, "meta.json", "symbolic link"},
		{"symlink dir then write", []entry{
			{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "d", Linkname: "/tmp"}},
			{hdr: tar.Header{Name: "d/evil"}, body: "x"},
		}, `"d"`, "symbolic link"},
		{"hardlink", []entry{ok, {hdr: tar.Header{Typeflag: tar.TypeLink, Name: "rss.csv", Linkname: "/etc/shadow"}}}, "rss.csv", "hard link"},
		{"char device", []entry{{hdr: tar.Header{Typeflag: tar.TypeChar, Name: "tty", Devmajor: 5}}}, "tty", "only regular files"},
		{"fifo", []entry{{hdr: tar.Header{Typeflag: tar.TypeFifo, Name: "pipe"}}}, "pipe", "only regular files"},
		{"huge declared size", []entry{ok, {hdr: tar.Header{Name: "big", Size: 3 << 30}, noBody: true}}, "big", "limit"},
		{"truncated body", []entry{
			{hdr: tar.Header{Name: "a", Size: MaxArchiveSize - 1}, noBody: true},
		}, "a", "unexpected EOF"},
		{"duplicate", []entry{ok, ok}, "gctrace.log", "conflicts"},
		{"file then dir", []entry{ok, {hdr: tar.Header{Name: "gctrace.log/x"}, body: "x"}}, "gctrace.log/x", "conflicts with an earlier entry"},
		{"empty name", []entry{{hdr: tar.Header{Name: ""}, body: "x"}}, `""`, "empty name"},
		{"dot file", []entry{{hdr: tar.Header{Name: "."}, body: "x"}}, `"."`, "not a file name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Extraction goes below TMPDIR; an empty TMPDIR afterwards shows
			// that nothing escaped and nothing was left behind.
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			archive := filepath.Join(t.TempDir(), "hostile.tar.gz")
			if err := os.WriteFile(archive, makeTarGz(t, tt.entries...), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := Open(archive)
			if err == nil {
				b.Close()
				t.Fatalf("Open succeeded, want error about %s", tt.reason)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "open bundle "+archive+": ") ||
				!strings.Contains(msg, tt.entry) || !strings.Contains(msg, tt.reason) {
				t.Errorf("error = %q, want it to name %s, entry %s and %q", msg, archive, tt.entry, tt.reason)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("TMPDIR holds %v after a refused archive", ents)
			}
			if _, err := os.Lstat(filepath.Join(filepath.Dir(tmp), "evil")); err == nil {
				t.Error("an entry escaped the extraction directory")
			}
		})
	}
}

// sparseTarGz returns an archive holding one PAX sparse file that expands to
// size zero bytes. archive/tar refuses to write the GNU.sparse records, so
// they are written under another name and, when sparse is set, renamed in
// the raw bytes, which no tar checksum covers.
func sparseTarGz(t testing.TB, size int, sparse bool) []byte {
	t.Helper()
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	err := tw.WriteHeader(&tar.Header{
		Typeflag: tar.TypeReg,
		Name:     "zeros",
		Mode:     0o644,
		Format:   tar.FormatPAX,
		PAXRecords: map[string]string{
			"XNU.sparse.numblocks": "1",
			"XNU.sparse.map":       "0,0",
			"XNU.sparse.size":      strconv.Itoa(size),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	data := raw.Bytes()
	if sparse {
		data = bytes.ReplaceAll(data, []byte("XNU.sparse."), []byte("GNU.sparse."))
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.Write(data)
	gz.Close()
	return buf.Bytes()
}

func TestOpenSparseArchive(t *testing.T) {
	dir := t.TempDir()
	// The same archive without the GNU.sparse records is a valid empty
	// file, which shows that the refusal is about sparseness.
	plain := filepath.Join(dir, "plain.tgz")
	os.WriteFile(plain, sparseTarGz(t, 1<<20, false), 0o644)
	b, err := Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, b, "zeros"); got != "" {
		t.Errorf("zeros holds %d bytes, want none", len(got))
	}
	b.Close()

	sparse := filepath.Join(dir, "sparse.tgz")
	os.WriteFile(sparse, sparseTarGz(t, 1<<20, true), 0o644)
	b, err = Open(sparse)
	if err == nil {
		b.Close()
		t.Fatal("Open of a sparse archive succeeded")
	}
	if want := `open bundle ` + sparse + `: entry "zeros": sparse file refused`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestOpenErrors(t *testing.T) {
	tmp := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	valid := makeTarGz(t, entry{hdr: tar.Header{Name: "gctrace.log"}, body: strings.Repeat("gc 1 @0.1s\n", 1000)})
	tests := []struct {
		path string
		want string
	}{
		{filepath.Join(tmp, "missing"), "no such file"},
		{write("notes.txt", []byte("hello")), "not a directory or a .tar.gz"},
		{write("garbage.tgz", []byte("hello, not gzip")), "read archive: gzip: invalid header"},
		{write("truncated.tgz", valid[:len(valid)/2]), "unexpected EOF"},
		{write("empty.tgz", nil), "read archive"},
	}
	for _, tt := range tests {
		b, err := Open(tt.path)
		if err == nil {
			b.Close()
			t.Errorf("Open(%s) succeeded", tt.path)
			continue
		}
		if !strings.HasPrefix(err.Error(), "open bundle "+tt.path+": ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%s) error = %q, want it to contain %q", tt.path, err, tt.want)
		}
	}
}

func TestOpenWithoutMeta(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, GCTraceFile), []byte(sampleTrace), 0o644)
	archive := filepath.Join(t.TempDir(), "b.tgz")
	os.WriteFile(archive, makeTarGz(t, entry{hdr: tar.Header{Name: GCTraceFile}, body: sampleTrace}), 0o644)
	for _, p := range []string{dir, archive} {
		b, err := Open(p)
		if err != nil {
			t.Fatalf("Open(%s): %v", p, err)
		}
		if m := b.Meta(); m != nil {
			t.Errorf("Open(%s).Meta() = %+v, want nil", p, m)
		}
		if !b.Has(GCTraceFile) || readAll(t, b, GCTraceFile) != sampleTrace {
			t.Errorf("Open(%s) lost %s", p, GCTraceFile)
		}
		if _, err := b.RSS(); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("RSS() without rss.csv: error = %v, want fs.ErrNotExist", err)
		}
		b.Close()
	}
}

func TestOpenCorruptMeta(t *testing.T) {
	tests := []struct {
		name string
		meta string
		want string
	}{
		{"syntax", "{\n  \"schema_version\": 1,\n  \"gogc\": \"100\"\n  \"gomemlimit\": \"\"\n}\n", "meta.json:4:3: invalid character '\"' after object key:value pair"},
		{"type", "{\n  \"schema_version\": 1,\n  \"num_cpu\": \"eight\"\n}\n", "meta.json:3:"},
		{"truncated", "{\"schema_version\": 1,", "meta.json:1:"},
		{"not json", "hello", "meta.json:1:1: invalid character 'h'"},
		{"empty", "", "meta.json:1:1: unexpected end of JSON input"},
		{"newer schema", `{"schema_version": 2}`, "meta.json: schema version 2 is newer than the supported version 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, MetaFile), []byte(tt.meta), 0o644)
			archive := filepath.Join(t.TempDir(), "b.tar.gz")
			os.WriteFile(archive, makeTarGz(t, entry{hdr: tar.Header{Name: "b/" + MetaFile}, body: tt.meta}), 0o644)
			for _, p := range []string{dir, archive} {
				b, err := Open(p)
				if err == nil {
					b.Close()
					t.Errorf("Open(%s) succeeded", p)
					continue
				}
				if want := "open bundle " + p + ": " + tt.want; !strings.HasPrefix(err.Error(), want) {
					t.Errorf("Open(%s) error = %q, want prefix %q", p, err, want)
				}
			}
		})
	}
}

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncd\n\nef")
	tests := []struct {
		offset    int64
		line, col int
	}{
		{0, 1, 1}, {1, 1, 1}, {2, 1, 2}, {3, 1, 3}, {4, 2, 1}, {5, 2, 2},
		{7, 3, 1}, {8, 4, 1}, {9, 4, 2}, {100, 4, 2},
	}
	for _, tt := range tests {
		line, col := lineCol(data, tt.offset)
		if line != tt.line || col != tt.col {
			t.Errorf("lineCol(%d) = %d:%d, want %d:%d", tt.offset, line, col, tt.line, tt.col)
		}
	}
}

func TestDecodeRSS(t *testing.T) {
	tests := []struct {
		name, in string
		want     []RSSSample
		wantErr  string
	}{
		{"header only", "elapsed_ms,rss_bytes\n", nil, ""},
		{"crlf and blank lines", "elapsed_ms,rss_bytes\r\n1.5,100\r\n\r\n2,200\r\n", []RSSSample{{Elapsed: 1500 * time.Microsecond, RSS: 100}, {Elapsed: 2 * time.Millisecond, RSS: 200}}, ""},
		{"columns by name", "rss_bytes,note,elapsed_ms\n100,x,1\n", []RSSSample{{Elapsed: time.Millisecond, RSS: 100}}, ""},
		{"cpu", "elapsed_ms,rss_bytes,cpu_ms\n1,100,0.5\n2,100,1.25\n", []RSSSample{{Elapsed: time.Millisecond, RSS: 100, CPU: 500 * time.Microsecond, HasCPU: true}, {Elapsed: 2 * time.Millisecond, RSS: 100, CPU: 1250 * time.Microsecond, HasCPU: true}}, ""},
		{"bad cpu", "elapsed_ms,rss_bytes,cpu_ms\n1,100,-3\n", nil, `rss.csv:2: invalid cpu_ms "-3"`},
		{"short cpu line", "elapsed_ms,rss_bytes,cpu_ms\n1,100\n", nil, "rss.csv:2: want at least 3 fields"},
		{"empty", "", nil, "rss.csv: empty file"},
		{"bad header", "time,bytes\n1,2\n", nil, "rss.csv:1: header"},
		{"bad elapsed", "elapsed_ms,rss_bytes\n1,2\nx,3\n", nil, `rss.csv:3: invalid elapsed_ms "x"`},
		{"negative elapsed", "elapsed_ms,rss_bytes\n-1,3\n", nil, "invalid elapsed_ms"},
		{"huge elapsed", "elapsed_ms,rss_bytes\n1e300,3\n", nil, "invalid elapsed_ms"},
		{"nan elapsed", "elapsed_ms,rss_bytes\nNaN,3\n", nil, "invalid elapsed_ms"},
		{"bad rss", "elapsed_ms,rss_bytes\n1,2.5\n", nil, `rss.csv:2: invalid rss_bytes "2.5"`},
		{"short line", "elapsed_ms,rss_bytes\n1\n", nil, "rss.csv:2: want at least 2 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeRSS(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEncodeRSSFormat(t *testing.T) {
	got := mustEncodeRSS(t, []RSSSample{{Elapsed: 0, RSS: 1}, {Elapsed: 100 * time.Millisecond, RSS: 2048}, {Elapsed: 1500 * time.Microsecond, RSS: 3}})
	want := "elapsed_ms,rss_bytes\n0,1\n100,2048\n1.5,3\n"
	if got != want {
		t.Errorf("rss.csv = %q, want %q", got, want)
	}
	// With every sample's CPU time, a third column.
	got = mustEncodeRSS(t, []RSSSample{{Elapsed: 0, RSS: 1, HasCPU: true}, {Elapsed: 100 * time.Millisecond, RSS: 2048, CPU: 37500 * time.Microsecond, HasCPU: true}})
	want = "elapsed_ms,rss_bytes,cpu_ms\n0,1,0\n100,2048,37.5\n"
	if got != want {
		t.Errorf("rss.csv = %q, want %q", got, want)
	}
}

func TestBundleOpenNames(t *testing.T) {
	dir := writeSample(t)
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret"), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b.Has("link") {
		t.Error("a symbolic link is listed as evidence")
	}
	for _, name := range []string{"link", "../secret", "missing", "profiles", "/etc/passwd", ""} {
		if rc, err := b.Open(name); err == nil {
			rc.Close()
			t.Errorf("Open(%q) succeeded", name)
		} else if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) error = %v, want fs.ErrNotExist", name, err)
		}
	}
	names := b.Names()
	names[0] = "changed"
	if b.Names()[0] == "changed" {
		t.Error("Names returns the bundle's own slice")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := b.Open(GCTraceFile); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Open after Close: error = %v, want fs.ErrClosed", err)
	}
}

func TestArchiveCloseRemovesTemp(t *testing.T) {
	dir := writeSample(t)
	archive := filepath.Join(t.TempDir(), "b.tgz")
	if err := WriteTarGz(dir, archive); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	b, err := Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 1 {
		t.Errorf("TMPDIR holds %v while the bundle is open, want one directory", ents)
	}
	b.Close()
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("TMPDIR holds %v after Close", ents)
	}
}

func TestWriteTarGzErrors(t *testing.T) {
	dir := writeSample(t)
	if err := WriteTarGz(dir, filepath.Join(dir, "self.tgz")); err == nil || !strings.Contains(err.Error(), "inside the bundle") {
		t.Errorf("packing a bundle into itself: error = %v", err)
	}
	if err := WriteTarGz(filepath.Join(dir, GCTraceFile), filepath.Join(t.TempDir(), "x.tgz")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("packing a file: error = %v", err)
	}
	os.Symlink("/etc/passwd", filepath.Join(dir, "link"))
	dst := filepath.Join(t.TempDir(), "x.tgz")
	err := WriteTarGz(dir, dst)
	if err == nil || !strings.Contains(err.Error(), "link: not a regular file") {
		t.Errorf("packing a symbolic link: error = %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(dst)); len(ents) != 0 {
		t.Errorf("failed WriteTarGz left %v behind", ents)
	}
}

func FuzzOpenTarGz(f *testing.F) {
	f.Add(makeTarGz(f,
		entry{hdr: tar.Header{Name: "b/" + MetaFile}, body: `{"schema_version":1,"exit_code":3}`},
		entry{hdr: tar.Header{Name: "b/" + RSSFile}, body: "elapsed_ms,rss_bytes\n0,1\n"},
		entry{hdr: tar.Header{Name: "b/" + GCTraceFile}, body: sampleTrace},
	))
	f.Add(makeTarGz(f, entry{hdr: tar.Header{Name: "../x"}, body: "x"}))
	f.Add(makeTarGz(f, entry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "x", Linkname: "/"}}))
	f.Add(makeTarGz(f, entry{hdr: tar.Header{Name: "x", Size: 3 << 30}, noBody: true}))
	f.Add(makeTarGz(f, entry{hdr: tar.Header{Name: MetaFile}, body: "{"}))
	f.Add([]byte{})
	f.Add([]byte{0x1f, 0x8b})
	f.Add(sparseTarGz(f, 1<<30, true))
	// The bundle in testdata, packed as WriteTarGz packs it.
	seed := filepath.Join(f.TempDir(), "run.tgz")
	if err := WriteTarGz("testdata/run", seed); err != nil {
		f.Fatal(err)
	}
	if data, err := os.ReadFile(seed); err == nil {
		f.Add(data)
	}
	archiveLimit = 64 << 20
	f.Cleanup(func() { archiveLimit = MaxArchiveSize })
	dir := f.TempDir()
	// Unpacking goes to a directory of the test's own, which must be
	// empty again after every input, whether Open failed or not.
	tmp := f.TempDir()
	f.Setenv("TMPDIR", tmp)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "in.tar.gz")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("TMPDIR holds %d entries after Open and Close", len(ents))
				for _, e := range ents {
					os.RemoveAll(filepath.Join(tmp, e.Name()))
				}
			}
		}()
		b, err := Open(p)
		if err != nil {
			return
		}
		defer b.Close()
		b.Meta()
		b.RSS()
		for _, name := range b.Names() {
			if !validName(name) {
				t.Errorf("Names() holds invalid name %q", name)
			}
			rc, err := b.Open(name)
			if err != nil {
				t.Errorf("Open(%q) of a listed name: %v", name, err)
				continue
			}
			io.Copy(io.Discard, rc)
			rc.Close()
		}
	})
}

// FuzzDecodeMeta checks that meta.json, which people edit by hand, is
// either read or refused with a positioned error, and that what is read
// is written back the same, an unknown exit status included.
func FuzzDecodeMeta(f *testing.F) {
	data, err := os.ReadFile("testdata/run/meta.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"exit_code":null,"schema_version":1}`))
	f.Add([]byte(`{"exit_code":137,"files":{"a":"b"}}`))
	f.Add([]byte(`{"schema_version":2}`))
	f.Add([]byte("{\n\"exit_code\": \"0\"\n}"))
	f.Add([]byte(`[[[[[[[[[[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeMeta(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), MetaFile+":") {
				t.Fatalf("error %q does not name %s", err, MetaFile)
			}
			return
		}
		out, err := encodeMeta(m)
		if err != nil {
			t.Fatalf("encode what was decoded: %v", err)
		}
		m2, err := decodeMeta(out)
		if err != nil {
			t.Fatalf("decode what was encoded: %v\n%s", err, out)
		}
		c1, k1 := m.Exit()
		c2, k2 := m2.Exit()
		if c1 != c2 || k1 != k2 || m.ExitString() != m2.ExitString() {
			t.Fatalf("exit status %d/%v became %d/%v", c1, k1, c2, k2)
		}
	})
}

// FuzzDecodeRSS checks that rss.csv is read or refused with a positioned
// error, and that what is read is written back the same.
func FuzzDecodeRSS(f *testing.F) {
	data, err := os.ReadFile("testdata/run/rss.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("rss_bytes,elapsed_ms,extra\r\n1,2,3\r\n"))
	f.Add([]byte("elapsed_ms,rss_bytes\n1e300,1\n"))
	f.Add([]byte("elapsed_ms,rss_bytes\nNaN,1\n"))
	f.Add([]byte("elapsed_ms,rss_bytes,cpu_ms\n1,2,3.5\n4,5,6\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := decodeRSS(bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), RSSFile+":") {
				t.Fatalf("error %q does not name %s", err, RSSFile)
			}
			return
		}
		var buf bytes.Buffer
		if err := encodeRSS(&buf, samples); err != nil {
			t.Fatal(err)
		}
		again, err := decodeRSS(&buf)
		if err != nil {
			t.Fatalf("decode what was encoded: %v", err)
		}
		if len(again) != len(samples) {
			t.Fatalf("%d samples became %d", len(samples), len(again))
		}
		for i := range samples {
			if samples[i].RSS != again[i].RSS || samples[i].RSS < 0 || samples[i].Elapsed < 0 || samples[i].HasCPU != again[i].HasCPU || samples[i].CPU < 0 {
				t.Fatalf("sample %d: %+v became %+v", i, samples[i], again[i])
			}
		}
	})
}

// TestReserve checks that a name reserved for another process to write
// refuses what the Writer did not make, takes only plain names, and that
// Abort removes the file the other process wrote.
func TestReserve(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "b"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.Path("theirs.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		wantErr string
	}{
		{HeapFile, ""},
		{HeapFile, ""}, // reserved twice by the same Writer
		{"theirs.txt", "not written by this run"},
		{"../x", "invalid file name"},
		{"sub/x", "invalid file name"},
	}
	for _, tt := range tests {
		path, err := w.Reserve(tt.name)
		if tt.wantErr == "" {
			if err != nil || path != w.Path(tt.name) {
				t.Errorf("Reserve(%q) = %q, %v, want %q", tt.name, path, err, w.Path(tt.name))
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Reserve(%q) error = %v, want %q", tt.name, err, tt.wantErr)
		}
	}
	if err := os.WriteFile(w.Path(HeapFile), []byte("profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path(HeapFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Abort left the reserved file: %v", err)
	}
}
