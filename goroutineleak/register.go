package goroutineleak

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/gcdoctor/gcdoctor/bundle"
	"github.com/gcdoctor/gcdoctor/diagnose"
	"github.com/gcdoctor/gcdoctor/evidence"
	"github.com/gcdoctor/gcdoctor/heapprof"
	"github.com/gcdoctor/gcdoctor/report"
)

// The evidence, its rule and its section register themselves: a blank
// import adds them (internal/cli/kinds.go).
func init() {
	evidence.Register(evidence.Reader{
		Name: "goroutine-leak profile", Command: "gcdoctor doctor",
		Files: []string{bundle.GoroutineLeakFile},
		Sniff: sniff,
		Read: func(_ context.Context, r io.Reader, name string) (diagnose.Extension, error) {
			p, err := Read(r, name)
			if p == nil {
				return nil, err
			}
			return p, err
		},
	})
	diagnose.Register(rule)
	report.RegisterSection(section)
}

// sniff recognises a gzipped profile whose string table names the
// goroutineleak sample type. The heap profile reader, built in, is asked
// first and claims every gzipped profile given as a loose file; a bundle's
// goroutineleak.pb.gz comes here by its name.
func sniff(head []byte) bool {
	zr, err := gzip.NewReader(bytes.NewReader(head))
	if err != nil {
		return false
	}
	b, _ := io.ReadAll(io.LimitReader(zr, 512))
	return bytes.Contains(b, []byte("goroutineleak"))
}

// remedy is the rule's remedy, in its documentation and its findings.
const remedy = "Give every goroutine a way to finish: a channel with room for every " +
	"sender (make(chan T, n)) when only the first answer is read, a select on ctx.Done() " +
	"beside the send or receive, or a close of the channel its receivers range over. " +
	"The runtime reports leaked goroutines but never frees them: their stacks, and " +
	"everything those stacks point to, stay live for the life of the process."

var rule = &diagnose.Rule{
	ID: "goroutine-leak", Title: "Goroutines leaked: blocked for good, never freed", Severity: diagnose.Warning,
	Evidence: "goroutine-leak profile",
	Rationale: `A goroutine blocked on a channel or lock that no running goroutine can reach
will never run again, but it is not collected: its stack stays allocated and
is a root the collector scans, and every object its frames point to stays
live. A leak per request grows the live heap, the heap goal and the mark work
of every cycle without bound. Go 1.26 built with
GOEXPERIMENT=goroutineleakprofile finds such goroutines with a collection run
for the purpose (/debug/pprof/goroutineleak).`,
	Detection: `The goroutine-leak profile (attach fetches it from /debug/pprof/goroutineleak
when the program serves it) lists at least one goroutine. Each site is the
function the goroutines were started with; for a function literal its first
line is the go statement. The stack bytes are a floor (2 KiB each, the
smallest stack); the heap they keep is estimated from an in-use heap profile
taken at the same time, when there is one.`,
	Remedy: remedy,
	Verify: `Attach again after the fix, under the same load: the goroutine-leak profile
should be empty, and the goroutine count flat.`,
	Judge: judge,
}

func judge(in *diagnose.Input) []*diagnose.Finding {
	p, _ := in.Extension("goroutineleak").(*Profile)
	if p == nil || p.Total == 0 {
		return nil
	}
	var out []*diagnose.Finding
	src := filepath.Base(p.Name)
	for _, s := range p.Sites[:min(len(p.Sites), 3)] {
		f := &diagnose.Finding{Severity: diagnose.Warning}
		f.Message = fmt.Sprintf("%d goroutine%s leaked, started with %s at %s:%d", s.Count, plural(s.Count),
			s.Start.Function, filepath.Base(s.Start.File), s.Start.Line)
		if s.Creator != "" {
			f.Message += " (a go statement in " + s.Creator + ")"
		}
		f.Message += ", blocked"
		if s.Wait != "" {
			f.Message += " on " + s.Wait
		}
		stack := s.Count * StackMinBytes
		f.Message += fmt.Sprintf(" at %s:%d. They hold at least %s of stack, never freed, which ordinary collections scan as roots", filepath.Base(s.Blocked.File), s.Blocked.Line, kib(stack))
		f.Evidence = []diagnose.Evidence{
			{Label: "leaked goroutines", Value: float64(s.Count), Unit: "goroutines", Source: src},
			{Label: "stack, at least", Value: float64(stack) / (1 << 10), Unit: "KiB", Source: src},
		}
		if held, ok := heldUnder(in.Heap, s.Start.Function); ok {
			f.Message += fmt.Sprintf("; the heap profile has %s in use allocated under %s, which they most likely keep reachable.", mib(held), s.Start.Function)
			f.Evidence = append(f.Evidence, diagnose.Evidence{Label: "in-use heap allocated under the function", Value: float64(held) / (1 << 20), Unit: "MiB", Source: filepath.Base(in.Heap.Name)})
			f.Caveats = append(f.Caveats, "the heap profile says which code allocated the bytes in use at the collection it describes (one that may predate the leak profile), not who holds them: objects the goroutines point to but did not allocate are not counted, and others may hold those they did")
		} else {
			f.Message += "; what they keep reachable on the heap is not known (no in-use heap profile beside the leak profile)."
		}
		f.Caveats = append(f.Caveats, "the stack is a floor: the profile does not record how far each goroutine's stack grew")
		f.Where = []diagnose.Location{{File: s.Start.File, Line: s.Start.Line}, {File: s.Blocked.File, Line: s.Blocked.Line}}
		f.Remedy = fmt.Sprintf("At %s:%d (%s): %s", filepath.Base(s.Blocked.File), s.Blocked.Line, s.Blocked.Function, remedy)
		f.Verify = fmt.Sprintf("Attach again after the fix, under the same load: the goroutine-leak profile should list no goroutine started at %s:%d (now %d).",
			filepath.Base(s.Start.File), s.Start.Line, s.Count)
		if in.Recheck.URL != "" {
			tool := in.Recheck.Tool
			if tool == "" {
				tool = "gcdoctor"
			}
			f.Command = tool + " attach --seconds 0 " + diagnose.ShellQuote(in.Recheck.URL)
		}
		out = append(out, f)
	}
	return out
}

// heldUnder returns the in-use bytes of the heap profile allocated on
// stacks that pass through fn, and whether the profile has in-use values.
func heldUnder(h *diagnose.HeapEvidence, fn string) (int64, bool) {
	if h == nil || h.Profile == nil || !h.Profile.HasInuse {
		return 0, false
	}
	var held int64
	top := h.Profile.Top(heapprof.SiteOptions{Sort: heapprof.ByInuseSpace, Attribution: heapprof.AttrCumulative, User: func(string) bool { return true }})
	for _, s := range top.Sites {
		if s.Function == fn {
			held += s.InuseBytes
		}
	}
	return held, true
}

func section(d *diagnose.Diagnosis) *report.Section {
	p, _ := d.Extension("goroutineleak").(*Profile)
	if p == nil {
		return nil
	}
	s := &report.Section{ID: "goroutineleak", Title: "Leaked goroutines", Source: p.Name,
		Intro: fmt.Sprintf("%d goroutine%s leaked at %d site%s", p.Total, plural(p.Total), len(p.Sites), plural(int64(len(p.Sites))))}
	s.Rows = []report.Row{
		{Label: "leaked goroutines", Value: strconv.FormatInt(p.Total, 10)},
		{Label: "their stacks, at least", Value: kib(p.Total * StackMinBytes)},
	}
	type jsonSite struct {
		Function    string `json:"function"`
		File        string `json:"file"`
		Line        int    `json:"line"`
		Creator     string `json:"creator,omitempty"`
		BlockedFunc string `json:"blocked_function"`
		BlockedFile string `json:"blocked_file"`
		BlockedLine int    `json:"blocked_line"`
		Wait        string `json:"wait,omitempty"`
		Count       int64  `json:"count"`
	}
	sites := []jsonSite{}
	t := &report.Table{Caption: "Where they were started, most first",
		Columns: []report.Column{{Head: "goroutines", Num: true}, {Head: "started with"}, {Head: "at"}, {Head: "blocked at"}, {Head: "on"}}}
	for i, st := range p.Sites {
		sites = append(sites, jsonSite{st.Start.Function, st.Start.File, st.Start.Line, st.Creator, st.Blocked.Function, st.Blocked.File, st.Blocked.Line, st.Wait, st.Count})
		if i < 10 {
			t.Rows = append(t.Rows, report.TableRow{Cells: []string{strconv.FormatInt(st.Count, 10), st.Start.Function,
				filepath.Base(st.Start.File) + ":" + strconv.Itoa(st.Start.Line), filepath.Base(st.Blocked.File) + ":" + strconv.Itoa(st.Blocked.Line), st.Wait}})
		}
	}
	if len(p.Sites) > 10 || p.Other > 0 {
		t.Footer = append(t.Footer, fmt.Sprintf("%d more sites not shown, %d goroutines at sites beyond the first %d not kept", max(len(p.Sites)-10, 0), p.Other, MaxSites))
	}
	if len(t.Rows) > 0 {
		s.Tables = []*report.Table{t}
	}
	s.JSON = []report.Field{{Key: "goroutine_leaks", Value: map[string]any{"total": p.Total, "other": p.Other, "sites": sites}}}
	return s
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func kib(b int64) string { return strconv.FormatFloat(float64(b)/(1<<10), 'f', 0, 64) + " KiB" }

func mib(b int64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB" }
