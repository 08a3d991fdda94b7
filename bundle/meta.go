package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// SchemaVersion is the version of the meta.json layout written by this
// package. It changes only when a field changes meaning or is removed, so
// that readers can refuse evidence they would misinterpret.
const SchemaVersion = 1

// Names of the files every bundle may hold. They are fixed so that bundles
// made by different gcdoctor versions, or assembled by hand, stay readable.
const (
	// MetaFile is the name of the JSON file holding a Meta.
	MetaFile = "meta.json"
	// GCTraceFile is the name of the file holding the program's standard
	// error, including its GODEBUG=gctrace=1 lines.
	GCTraceFile = "gctrace.log"
	// RSSFile is the name of the CSV file holding resident set size samples.
	RSSFile = "rss.csv"
	// HostFile is the name of the CSV file holding samples of the
	// machine's CPU contention (pressure, steal, load, the cgroup's
	// throttling), taken beside the RSS samples.
	HostFile = "host.csv"
	// The profiles and trace a running program serves, as net/http/pprof
	// serves them (gzipped protobuf, and the runtime's trace format).
	HeapFile      = "heap.pb.gz"      // /debug/pprof/heap
	AllocsFile    = "allocs.pb.gz"    // /debug/pprof/allocs
	GoroutineFile = "goroutine.pb.gz" // /debug/pprof/goroutine
	TraceFile     = "trace.out"       // /debug/pprof/trace?seconds=N
	// GoroutineLeakFile is the goroutine-leak profile net/http/pprof
	// (at GoroutineLeakPath) and gcdoctor's agent serve in a program
	// built with GOEXPERIMENT=goroutineleakprofile (Go 1.26).
	GoroutineLeakFile = "goroutineleak.pb.gz"
	// GoroutineLeakPath is the profile's name under /debug/pprof/.
	GoroutineLeakPath = "goroutineleak"
	// LiveTimesFile is the CSV file saying when each sample of a running
	// program's own GC figures (LiveFiles) was taken.
	LiveTimesFile = "live.csv"
)

// LiveFiles are what a running program served about its GC at the start
// and the end of the window attach watched it (and in between, for the
// ring of its last 256 pauses), as it served them: MemStats from
// /debug/pprof/heap?debug=1 (cut to its MemStats), Prometheus text from
// /metrics, expvar's /debug/vars, and gcdoctor's agent. Package live reads
// them.
var LiveFiles = []string{
	"agent-start.json", "agent-end.json",
	"memstats-start.txt", "memstats-end.txt", "memstats-during.txt",
	"metrics-start.txt", "metrics-end.txt",
	"expvar-start.json", "expvar-end.json", "expvar-during.json",
}

// Meta describes how the evidence in a bundle was gathered. Most fields are
// kept even when empty, because "not set" (for example GOGC) is itself a
// finding for the analysis.
type Meta struct {
	// SchemaVersion is the layout version of this file; see SchemaVersion.
	SchemaVersion int `json:"schema_version"`
	// Created is when the bundle was written.
	Created time.Time `json:"created"`
	// ToolVersion is the version of gcdoctor that wrote the bundle.
	ToolVersion string `json:"tool_version"`
	// Command is the argv of the program that was run, when one was run
	// rather than evidence being imported.
	Command []string `json:"command,omitempty"`
	// ExitCode is the program's exit status, or 128 plus the signal number
	// when a signal killed it, following the shell convention. It is nil
	// when unknown: meta.json has no exit_code when no program was run
	// (imported evidence, attach) or when gcdoctor itself was stopped
	// before the program ended. Unknown is not a clean exit: read it with
	// Exit or ExitString, never as *ExitCode defaulting to 0.
	ExitCode *int `json:"exit_code,omitempty"`
	// Start is when the program was started.
	Start time.Time `json:"start"`
	// DurationMS is the program's wall-clock run time in milliseconds.
	DurationMS float64 `json:"duration_ms"`
	// Stopped reports that gcdoctor asked the program to stop (it passed
	// on a SIGINT or SIGTERM, or its own run was cancelled) before the
	// program exited: a program that ends on its own ran to completion,
	// one that was stopped did not.
	Stopped bool `json:"stopped,omitempty"`
	// GoVersion is the Go toolchain that built the program, for example
	// "go1.26.8", read from the executable's build information. It is empty
	// when the program is not a Go binary or the information is missing.
	GoVersion string `json:"go_version"`
	// GOGC is the GOGC environment variable seen by the program, "" if unset.
	GOGC string `json:"gogc"`
	// GOMEMLIMIT is the GOMEMLIMIT environment variable seen by the
	// program, "" if unset.
	GOMEMLIMIT string `json:"gomemlimit"`
	// GOMAXPROCS is the GOMAXPROCS environment variable seen by the
	// program, "" if unset.
	GOMAXPROCS string `json:"gomaxprocs"`
	// GODEBUG is the GODEBUG environment variable passed to the program,
	// including the gctrace=1 setting added to collect evidence.
	GODEBUG string `json:"godebug"`
	// NumCPU is the number of CPUs of the machine the program may run on,
	// as limited by CPU affinity but not by a cgroup CPU quota: the count
	// the Go runtime starts from when it picks the default GOMAXPROCS.
	NumCPU int `json:"num_cpu"`
	// CgroupMemoryLimitBytes is the cgroup memory limit of the program in
	// bytes, 0 when there is none or it is unknown.
	CgroupMemoryLimitBytes int64 `json:"cgroup_memory_limit_bytes"`
	// CgroupCPULimit is the cgroup CPU quota of the program in CPUs
	// (quota divided by period), 0 when there is none or it is unknown.
	CgroupCPULimit float64 `json:"cgroup_cpu_limit"`
	// PeakRSSBytes is the largest resident set size of the program seen, in
	// bytes, 0 when unknown.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// Host sums up host.csv: how contended the machine's CPUs were while
	// the program ran. It is nil when no host samples were taken.
	Host *HostSummary `json:"host,omitempty"`
	// Files maps the name of each evidence file in the bundle to a short
	// description of what it holds.
	Files map[string]string `json:"files"`
}

// Exit returns the program's exit status and whether it is known (see
// ExitCode). An unknown status is 0, false: callers must look at known
// before taking 0 for success.
func (m *Meta) Exit() (code int, known bool) {
	if m == nil || m.ExitCode == nil {
		return 0, false
	}
	return *m.ExitCode, true
}

// ExitString returns the exit status for people: "0", "2", "137 (signal
// 9)" for a program a signal killed, or "unknown".
func (m *Meta) ExitString() string {
	code, known := m.Exit()
	switch {
	case !known:
		return "unknown"
	case code > 128 && code < 128+65:
		return fmt.Sprintf("%d (signal %d)", code, code-128)
	}
	return strconv.Itoa(code)
}

// decodeMeta parses a meta.json document. Syntax and type errors carry the
// line and column, because people edit these files by hand.
func decodeMeta(data []byte) (*Meta, error) {
	var m Meta
	if err := json.Unmarshal(data, &m); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			line, col := lineCol(data, syn.Offset)
			return nil, fmt.Errorf("%s:%d:%d: %v", MetaFile, line, col, err)
		case errors.As(err, &typ):
			line, col := lineCol(data, typ.Offset)
			return nil, fmt.Errorf("%s:%d:%d: %v", MetaFile, line, col, err)
		}
		return nil, fmt.Errorf("%s: %v", MetaFile, err)
	}
	if m.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%s: schema version %d is newer than the supported version %d", MetaFile, m.SchemaVersion, SchemaVersion)
	}
	return &m, nil
}

// lineCol converts a json error offset, which counts the bytes read up to
// and including the offending one, to a 1-based line and column.
func lineCol(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 1 {
		return 1, 1
	}
	before := data[:offset-1]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// encodeMeta renders m indented, since meta.json is meant to be read by
// people as well as programs.
func encodeMeta(m *Meta) ([]byte, error) {
	c := *m
	if c.SchemaVersion == 0 {
		c.SchemaVersion = SchemaVersion
	}
	if c.Files == nil {
		c.Files = map[string]string{}
	}
	data, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
