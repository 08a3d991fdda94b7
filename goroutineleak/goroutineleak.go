// Package goroutineleak reads the goroutine-leak profile of Go 1.26
// (/debug/pprof/goroutineleak, in programs built with
// GOEXPERIMENT=goroutineleakprofile): the goroutines a collection found
// blocked for good, on channels or locks that no running goroutine can
// reach. It groups them by the function each was started with, says where
// they wait, and registers the evidence, the goroutine-leak rule and the
// report section that take them up.
//
// The profile is a goroutine profile: a count per stack, each stack
// running from the goroutine's blocked leaf to the function it was
// started with. It does not hold the go statement itself (only the
// debug=2 text, a traceback, names the creator's line); the function's
// own first line, which the profile does hold, is that go statement for
// a function literal.
package goroutineleak

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// Bounds on what Read accepts and keeps.
const (
	// MaxBytes bounds the profile read, gzipped.
	MaxBytes = 64 << 20
	// MaxSites bounds the sites kept; the rest are counted in Other.
	MaxSites = 50
	// StackMinBytes is the smallest stack a goroutine has (the runtime's
	// starting size without GODEBUG=adaptivestackstart): every leaked
	// goroutine holds at least this much.
	StackMinBytes = 2 << 10
)

// Profile is a goroutine-leak profile, grouped by site.
type Profile struct {
	Name  string // the file or URL read
	Total int64  // leaked goroutines
	Sites []Site // most goroutines first, at most MaxSites
	Other int64  // goroutines of the sites beyond MaxSites
}

// Kind names the evidence for diagnose.Input.Extension.
func (*Profile) Kind() string { return "goroutineleak" }

// Frame is a place in the program.
type Frame struct {
	Function string // fully qualified
	File     string
	Line     int
}

// Pos returns "file:line".
func (f Frame) Pos() string { return fmt.Sprintf("%s:%d", f.File, f.Line) }

// Site is the leaked goroutines started with one function.
type Site struct {
	// Start is the function the goroutines were started with, at the
	// line where it begins: for a function literal (main.fetch.func1),
	// the go statement's line.
	Start Frame
	// Creator is the function whose go statement started them, as far as
	// Start's name tells it (main.fetch for main.fetch.func1); "" when
	// Start is a named function, which any caller may start.
	Creator string
	// Blocked is where they wait: the first frame from the leaf outside
	// the runtime and the sync packages, on the heaviest stack.
	Blocked Frame
	// Wait says what they wait for ("a channel send"), from the runtime
	// frame they are parked in; "" when not recognised.
	Wait string
	// Count is how many goroutines leaked here; Stacks how many distinct
	// stacks they have.
	Count  int64
	Stacks int
}

// Read reads a goroutine-leak profile (gzipped protobuf, as
// net/http/pprof serves it) with github.com/google/pprof/profile. It
// refuses other profiles, a goroutine profile among them: its goroutines
// are not leaks.
func Read(r io.Reader, name string) (*Profile, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB: not read", name, MaxBytes>>20)
	}
	p, err := profile.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(p.SampleType) != 1 || p.SampleType[0].Type != "goroutineleak" {
		types := make([]string, len(p.SampleType))
		for i, st := range p.SampleType {
			types[i] = st.Type + "/" + st.Unit
		}
		return nil, fmt.Errorf("%s: not a goroutine-leak profile (sample types %s)", name, strings.Join(types, ", "))
	}
	out := &Profile{Name: name}
	bySite := map[Frame]*site{}
	for _, s := range p.Sample {
		if len(s.Value) != 1 || s.Value[0] <= 0 {
			continue
		}
		frames := frames(s)
		if len(frames) == 0 {
			continue
		}
		out.Total += s.Value[0]
		start := frames[len(frames)-1].Frame
		if l := frames[len(frames)-1].startLine; l > 0 {
			start.Line = l
		}
		a := bySite[start]
		if a == nil {
			a = &site{Site: Site{Start: start, Creator: creator(start.Function)}}
			bySite[start] = a
		}
		a.Count += s.Value[0]
		a.Stacks++
		if s.Value[0] > a.best {
			a.best = s.Value[0]
			a.Blocked, a.Wait = blocked(frames)
		}
	}
	for _, a := range bySite {
		out.Sites = append(out.Sites, a.Site)
	}
	slices.SortFunc(out.Sites, func(a, b Site) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Start.Function, b.Start.Function),
			cmp.Compare(a.Start.File, b.Start.File), cmp.Compare(a.Start.Line, b.Start.Line))
	})
	if len(out.Sites) > MaxSites {
		for _, s := range out.Sites[MaxSites:] {
			out.Other += s.Count
		}
		out.Sites = out.Sites[:MaxSites]
	}
	return out, nil
}

// site is a Site being gathered.
type site struct {
	Site
	best int64 // count of the heaviest stack so far
}

// frame is a frame with the first line of its function.
type frame struct {
	Frame
	startLine int
}

// frames returns the sample's frames, leaf first, inlined calls expanded.
func frames(s *profile.Sample) []frame {
	var out []frame
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function == nil {
				continue
			}
			out = append(out, frame{Frame{ln.Function.Name, ln.Function.Filename, int(ln.Line)}, int(ln.Function.StartLine)})
		}
	}
	return out
}

// reLiteral matches the name the compiler gives a function literal, or a
// go statement's wrapper: the enclosing function, then .funcN or .gowrapN.
var reLiteral = regexp.MustCompile(`^(.+?)((\.func\d+|\.gowrap\d+)(\.\d+)*)+$`)

// creator returns the function a function literal was written in, "" for
// a named function.
func creator(fn string) string {
	if m := reLiteral.FindStringSubmatch(fn); m != nil {
		return m[1]
	}
	return ""
}

// waits names what the runtime frames a goroutine parks in wait for.
var waits = map[string]string{
	"runtime.chansend1":                "a channel send",
	"runtime.chansend":                 "a channel send",
	"runtime.chanrecv1":                "a channel receive",
	"runtime.chanrecv2":                "a channel receive",
	"runtime.chanrecv":                 "a channel receive",
	"runtime.selectgo":                 "a select",
	"runtime.block":                    "select {} (forever)",
	"sync.runtime_SemacquireMutex":     "a mutex",
	"sync.runtime_SemacquireRWMutex":   "an RWMutex",
	"sync.runtime_SemacquireRWMutexR":  "an RWMutex",
	"sync.runtime_Semacquire":          "a sync.WaitGroup",
	"sync.runtime_SemacquireWaitGroup": "a sync.WaitGroup",
	"sync.runtime_notifyListWait":      "a sync.Cond",
}

// blocked returns where the goroutine waits, and for what.
func blocked(frames []frame) (Frame, string) {
	wait := ""
	for _, f := range frames {
		if w, ok := waits[f.Function]; ok && wait == "" {
			wait = w
		}
		if !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "sync.") && !strings.HasPrefix(f.Function, "internal/") {
			return f.Frame, wait
		}
	}
	return frames[len(frames)-1].Frame, wait
}
