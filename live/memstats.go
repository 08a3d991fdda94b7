package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
)

// MemStatsFigures are the runtime.MemStats fields the KPIs use, as
// /debug/pprof/heap?debug=1 or expvar serve them.
type MemStatsFigures struct {
	TotalAlloc, Sys, HeapAlloc, HeapSys, HeapInuse, HeapReleased uint64 // bytes
	StackInuse                                                   uint64 // bytes
	NextGC                                                       uint64 // bytes
	// LastGC is when the last cycle ended, Unix ns.
	LastGC uint64
	// PauseTotalNs is the sum of every pause; expvar has it, the heap
	// profile does not (0).
	PauseTotalNs uint64
	// PauseNs and PauseEnd are the rings of the last 256 cycles' pauses
	// (ns, the cycle's stop-the-world phases together) and their ends
	// (Unix ns): cycle k is at index (k-1) % 256.
	PauseNs, PauseEnd  [256]uint64
	NumGC, NumForcedGC uint32
	// GCCPUFraction is the runtime's share of the available CPU used by
	// the GC since the program started, as of the end of the last cycle.
	GCCPUFraction float64
	// MaxRSS is the peak resident set size the heap profile adds on
	// some systems, bytes; 0 when absent.
	MaxRSS uint64
}

// memStatsHeader starts the MemStats part of a heap profile in text.
const memStatsHeader = "# runtime.MemStats\n"

// TrimMemStats returns the MemStats part of a heap profile in text (the
// profile's records before it, often megabytes of stacks, are of no use
// here), or data as it is when it has none.
func TrimMemStats(data []byte) []byte {
	if i := bytes.Index(data, []byte("\n"+memStatsHeader)); i >= 0 {
		return data[i+1:]
	}
	return data
}

// ParseMemStats reads the runtime.MemStats that /debug/pprof/heap?debug=1
// ends with ("# NumGC = 12" lines). name is the input's name for errors,
// which give its line.
func ParseMemStats(data []byte, name string) (*MemStatsFigures, error) {
	i := bytes.Index(data, []byte(memStatsHeader))
	if i < 0 || i > 0 && data[i-1] != '\n' {
		return nil, fmt.Errorf("%s: no %q section: not a heap profile in text (debug=1)", name, strings.TrimSpace(memStatsHeader))
	}
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	m := &MemStatsFigures{}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data[i+len(memStatsHeader):]), "\n") {
		line++
		key, val, ok := strings.Cut(strings.TrimPrefix(l, "# "), " = ")
		if !ok || !strings.HasPrefix(l, "# ") {
			continue
		}
		if err := m.set(key, val); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %v", name, line, key, err)
		}
		have[key] = true
	}
	if !have["NumGC"] || !have["PauseNs"] || !have["PauseEnd"] {
		return nil, fmt.Errorf("%s: the MemStats section lacks NumGC, PauseNs or PauseEnd", name)
	}
	return m, nil
}

// set sets the field named key from its text; other keys are left alone.
func (m *MemStatsFigures) set(key, val string) error {
	u := func(dst *uint64) error {
		v, err := strconv.ParseUint(val, 10, 64)
		*dst = v
		return err
	}
	switch key {
	case "TotalAlloc":
		return u(&m.TotalAlloc)
	case "Sys":
		return u(&m.Sys)
	case "HeapAlloc":
		return u(&m.HeapAlloc)
	case "HeapSys":
		return u(&m.HeapSys)
	case "HeapInuse":
		return u(&m.HeapInuse)
	case "HeapReleased":
		return u(&m.HeapReleased)
	case "NextGC":
		return u(&m.NextGC)
	case "LastGC":
		return u(&m.LastGC)
	case "MaxRSS":
		return u(&m.MaxRSS)
	case "Stack":
		inuse, _, _ := strings.Cut(val, " / ")
		v, err := strconv.ParseUint(inuse, 10, 64)
		m.StackInuse = v
		return err
	case "NumGC", "NumForcedGC":
		v, err := strconv.ParseUint(val, 10, 32)
		if key == "NumGC" {
			m.NumGC = uint32(v)
		} else {
			m.NumForcedGC = uint32(v)
		}
		return err
	case "GCCPUFraction":
		v, err := strconv.ParseFloat(val, 64)
		m.GCCPUFraction = v
		return err
	case "PauseNs", "PauseEnd":
		ring := &m.PauseNs
		if key == "PauseEnd" {
			ring = &m.PauseEnd
		}
		return parseRing(val, ring)
	}
	return nil
}

// parseRing reads a ring of 256 numbers printed by fmt's %d: "[1 2 3]".
func parseRing(val string, ring *[256]uint64) error {
	inner, ok := strings.CutPrefix(val, "[")
	if inner, ok = strings.CutSuffix(inner, "]"); !ok {
		return fmt.Errorf("not a list in brackets")
	}
	fields := strings.Fields(inner)
	if len(fields) != len(ring) {
		return fmt.Errorf("%d values, not %d", len(fields), len(ring))
	}
	for i, f := range fields {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return fmt.Errorf("value %d: %q is not a count", i+1, f)
		}
		ring[i] = v
	}
	return nil
}

// ParseExpvar reads the "memstats" of expvar's /debug/vars.
func ParseExpvar(data []byte, name string) (*MemStatsFigures, error) {
	var doc struct {
		MemStats *runtime.MemStats `json:"memstats"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	s := doc.MemStats
	if s == nil {
		return nil, fmt.Errorf("%s: no \"memstats\": expvar is served, but not the runtime's memstats", name)
	}
	return &MemStatsFigures{TotalAlloc: s.TotalAlloc, Sys: s.Sys, HeapAlloc: s.HeapAlloc, HeapSys: s.HeapSys,
		HeapInuse: s.HeapInuse, HeapReleased: s.HeapReleased, StackInuse: s.StackInuse, NextGC: s.NextGC,
		LastGC: s.LastGC, PauseTotalNs: s.PauseTotalNs, PauseNs: s.PauseNs, PauseEnd: s.PauseEnd,
		NumGC: s.NumGC, NumForcedGC: s.NumForcedGC, GCCPUFraction: s.GCCPUFraction}, nil
}

// pauses returns the cycles whose pauses the ring holds, each with its
// pause in ns: cycle numbers from max(1, NumGC-255) to NumGC.
func (m *MemStatsFigures) pauses(yield func(cycle uint32, ns uint64)) {
	n := m.NumGC
	first := uint32(1)
	if n > uint32(len(m.PauseNs)) {
		first = n - uint32(len(m.PauseNs)) + 1
	}
	for k := first; k <= n && k > 0; k++ {
		yield(k, m.PauseNs[(k-1)%uint32(len(m.PauseNs))])
	}
}
