package compare

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/gctrace"
	"github.com/gcdoctor/gcdoctor/internal/plural"
	"github.com/gcdoctor/gcdoctor/pacer"
)

// BenchSet holds benchmark results: a sample per benchmark and unit.
type BenchSet struct {
	// Results are in the order their benchmark and unit first appeared.
	Results []*BenchResult
	// config holds the file configuration ("goos", "pkg", "cpu", …) in
	// order of appearance; a key seen with different values maps to "".
	config     map[string]string
	configKeys []string
	index      map[benchKey]*BenchResult
	pkgs       map[string]bool
}

type benchKey struct{ pkg, name, unit string }

// BenchResult is the sample of one benchmark in one unit.
type BenchResult struct {
	Pkg  string // the "pkg:" configuration of the file, "" when none
	Name string // full name without the "Benchmark" prefix, such as "Encode/small-8"
	Unit string // tidied unit: "sec/op", "B/op", "allocs/op", "MB/s", …
	// Better is the unit's direction: -1 lower is better, +1 higher.
	Better int
	Values Sample
}

// NewBenchSet returns an empty BenchSet.
func NewBenchSet() *BenchSet {
	return &BenchSet{config: map[string]string{}, index: map[benchKey]*BenchResult{}, pkgs: map[string]bool{}}
}

// Add reads benchmark results in the Go benchmark format from r, named
// name in errors, and returns how many result lines it held. Lines that are
// not results (program output, gctrace lines) are skipped, as benchstat
// does.
func (b *BenchSet) Add(r io.Reader, name string) (int, error) {
	br := benchfmt.NewReader(r, name)
	n := 0
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		n++
		for _, c := range res.Config {
			if !c.File {
				continue
			}
			v := string(c.Value)
			old, seen := b.config[c.Key]
			switch {
			case !seen:
				b.config[c.Key] = v
				b.configKeys = append(b.configKeys, c.Key)
			case old != v:
				b.config[c.Key] = ""
			}
		}
		pkg := res.GetConfig("pkg")
		b.pkgs[pkg] = true
		units := br.Units()
		for _, v := range res.Values {
			k := benchKey{pkg, res.Name.String(), v.Unit}
			e := b.index[k]
			if e == nil {
				e = &BenchResult{Pkg: pkg, Name: k.name, Unit: v.Unit, Better: units.GetBetter(v.Unit)}
				b.index[k] = e
				b.Results = append(b.Results, e)
			}
			e.Values = append(e.Values, v.Value)
		}
	}
	if err := br.Err(); err != nil {
		return n, fmt.Errorf("%s: %v", name, err)
	}
	return n, nil
}

// Get returns the sample of a benchmark in a unit, nil when there is none.
func (b *BenchSet) Get(pkg, name, unit string) Sample {
	if e := b.index[benchKey{pkg, name, unit}]; e != nil {
		return e.Values
	}
	return nil
}

// Config returns the configuration lines ("key: value") that every result
// shared, in order of appearance.
func (b *BenchSet) Config() []string {
	var out []string
	for _, k := range b.configKeys {
		if v := b.config[k]; v != "" {
			out = append(out, k+": "+v)
		}
	}
	return out
}

// RunFromLog returns the GC figures of a parsed gctrace log: those of its
// busiest process (gctrace.Log.Busiest, the most GC CPU time), which is
// the program rather than the go command or the compiler when the log
// holds several, and the process the pacer model is fitted to. Its GC CPU
// is pacer.GCCPUFraction, the figure the model predicts.
func RunFromLog(log *gctrace.Log) Run {
	r := unknownRun()
	seg := log.Busiest()
	if seg == nil {
		return r
	}
	sm := &seg.Summary
	r.GCCount = float64(sm.Cycles)
	r.GCCPUPercent = pacer.GCCPUFraction(sm) * 100
	r.P99PauseMS = sm.P99PauseMS
	if sm.PeakHeapMB >= 0 {
		r.PeakHeapMiB = float64(sm.PeakHeapMB)
	}
	return r
}

// Side is the evidence of one side of a diff: benchmark results, the GC
// figures of runs (one per gctrace log or bundle), or both.
type Side struct {
	Inputs []string  // the files and bundles read
	Bench  *BenchSet // nil when no input held benchmark results
	Runs   []Run
	// Caveats say what was left unread, as sentences: the files of a
	// directory that are not regular files (a FIFO would block the read
	// forever, a device never end it).
	Caveats []string

	// seen holds the directories read below one input, so that a
	// symbolic link to a directory above does not loop forever.
	seen []os.FileInfo
}

// Load reads one side of a diff. spec is a benchmark results file, a
// gctrace log, an evidence bundle (a directory or a .tar.gz), a
// comma-separated list of those, or a directory holding several of them
// (each run one sample). A file that is given by name must be a regular
// file holding benchmark results or gctrace output; in a directory other
// files are skipped, and those that are not regular files are named in
// Notes.
func Load(spec string) (*Side, error) {
	s := &Side{}
	for _, p := range strings.Split(spec, ",") {
		if p == "" {
			continue
		}
		s.seen = nil
		if err := s.add(p, true); err != nil {
			return nil, err
		}
	}
	if len(s.Inputs) == 0 {
		skipped := ""
		if len(s.Caveats) > 0 {
			skipped = fmt.Sprintf(" (%s skipped)", plural.Count(len(s.Caveats), "file that is not a regular file", "files that are not regular files"))
		}
		return nil, fmt.Errorf("%s: no benchmark results or gctrace logs found%s", spec, skipped)
	}
	return s, nil
}

func (s *Side) add(path string, named bool) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		// Checked before anything opens it: a bundle's archive name on a
		// FIFO must not be opened either.
		if named {
			return fmt.Errorf("%s: not a regular file or a directory", path)
		}
		s.Caveats = append(s.Caveats, fmt.Sprintf("Skipped %s: not a regular file.", path))
		return nil
	}
	if bundle.IsBundle(path) {
		return s.addBundle(path)
	}
	if !st.IsDir() {
		return s.addFile(path, named)
	}
	if slices.ContainsFunc(s.seen, func(d os.FileInfo) bool { return os.SameFile(d, st) }) {
		return nil
	}
	s.seen = append(s.seen, st)
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := s.add(filepath.Join(path, e.Name()), false); err != nil {
			return err
		}
	}
	return nil
}

// errNeither is returned for a file that holds no evidence.
var errNeither = errors.New("neither benchmark results nor gctrace output")

func (s *Side) addFile(path string, named bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	bs := NewBenchSet()
	n, err := bs.Add(f, path)
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	log, gerr := gctrace.Parse(f, path, gctrace.Options{})
	if gerr != nil && n == 0 {
		if !named {
			return nil
		}
		return fmt.Errorf("%s: %w", path, errNeither)
	}
	s.Inputs = append(s.Inputs, path)
	if n > 0 {
		if s.Bench == nil {
			s.Bench = NewBenchSet()
		}
		// Read again into the side's set, so that results from several
		// files pool into one sample per benchmark.
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		if _, err := s.Bench.Add(f, path); err != nil {
			return err
		}
	}
	if gerr == nil {
		s.Runs = append(s.Runs, RunFromLog(log))
	}
	return nil
}

func (s *Side) addBundle(path string) error {
	b, err := bundle.Open(path)
	if err != nil {
		return err
	}
	defer b.Close()
	f, err := b.Open(bundle.GCTraceFile)
	if err != nil {
		return fmt.Errorf("%s: no %s in this bundle", path, bundle.GCTraceFile)
	}
	defer f.Close()
	name := strings.TrimSuffix(path, "/") + "/" + bundle.GCTraceFile
	gogc := 0
	if m := b.Meta(); m != nil {
		gogc = atoiOr0(m.GOGC)
	}
	log, err := gctrace.Parse(f, name, gctrace.Options{GOGC: gogc})
	if err != nil {
		return err
	}
	r := RunFromLog(log)
	if m := b.Meta(); m != nil {
		if m.DurationMS > 0 {
			r.WallS = m.DurationMS / 1000
		}
		if m.PeakRSSBytes > 0 {
			r.PeakRSS = float64(m.PeakRSSBytes)
		}
	}
	s.Inputs = append(s.Inputs, path)
	s.Runs = append(s.Runs, r)
	return nil
}

func atoiOr0(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// Diff compares two sides: a row per benchmark and unit, grouped by unit
// as benchstat groups them, then the runs' GC figures when both sides have
// runs. labels name the two columns. It fails when the sides have nothing
// to compare.
func Diff(before, after *Side, labels [2]string) (*Table, error) {
	t := &Table{Kind: "diff", Columns: labels[:]}
	if before.Bench != nil && after.Bench != nil {
		t.addBenchRows([]*BenchSet{before.Bench, after.Bench})
	}
	if len(before.Runs) > 0 && len(after.Runs) > 0 {
		t.addRunRows("", [][]Run{before.Runs, after.Runs})
	}
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("nothing to compare: %s holds %s, %s holds %s", labels[0], before.what(), labels[1], after.what())
	}
	t.Caveats = append(t.Caveats, before.Caveats...)
	t.Caveats = append(t.Caveats, after.Caveats...)
	return t, nil
}

func (s *Side) what() string {
	switch {
	case s.Bench != nil && len(s.Runs) > 0:
		return "benchmark results and gctrace output"
	case s.Bench != nil:
		return "benchmark results only"
	}
	return "gctrace output only"
}

// addBenchRows adds a row per unit and benchmark found in any set, units
// in order of first appearance and benchmarks within a unit likewise.
func (t *Table) addBenchRows(sets []*BenchSet) {
	type rowKey struct{ pkg, name string }
	var units []string
	byUnit := map[string][]rowKey{}
	better := map[string]int{}
	pkgs := map[string]bool{}
	for _, set := range sets {
		for p := range set.pkgs {
			pkgs[p] = true
		}
		for _, r := range set.Results {
			k := rowKey{r.Pkg, r.Name}
			if _, ok := byUnit[r.Unit]; !ok {
				units = append(units, r.Unit)
				better[r.Unit] = r.Better
			}
			if !slices.Contains(byUnit[r.Unit], k) {
				byUnit[r.Unit] = append(byUnit[r.Unit], k)
			}
		}
	}
	for _, u := range units {
		m := Metric{Name: u, Unit: u, Better: better[u]}
		for _, k := range byUnit[u] {
			samples := make([]Sample, len(sets))
			for i, set := range sets {
				samples[i] = set.Get(k.pkg, k.name, u)
			}
			name := k.name
			if len(pkgs) > 1 && k.pkg != "" {
				// Benchmarks of several packages may share names.
				name = k.pkg[strings.LastIndex(k.pkg, "/")+1:] + "." + name
			}
			t.Rows = append(t.Rows, NewRow(name, m, samples))
		}
	}
	// The configuration shown is what every set agrees on.
	if len(sets) > 0 {
		for _, line := range sets[0].Config() {
			same := true
			for _, set := range sets[1:] {
				same = same && slices.Contains(set.Config(), line)
			}
			if same {
				t.Config = append(t.Config, line)
			}
		}
	}
}

// Describe names a side of a comparison briefly, for a title: spec (the
// argument it was loaded from) itself, or its first file and how many
// there are when spec is a comma-separated list.
func (s *Side) Describe(spec string) string {
	if !strings.Contains(spec, ",") {
		if len(s.Inputs) > 1 {
			return fmt.Sprintf("%s (%d inputs)", spec, len(s.Inputs))
		}
		return spec
	}
	return fmt.Sprintf("%s,… (%d inputs)", s.Inputs[0], len(s.Inputs))
}
