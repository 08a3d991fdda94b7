package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/workers"
)

// Workers is a worker-count recommendation for one goroutine group of a
// trace (gcdoctor workers).
type Workers struct {
	Trace          string // the trace file
	Group          *exectrace.Group
	Recommendation workers.Recommendation
	// Partial is set when the trace was cut short: the recommendation
	// rests on what could be read.
	Partial bool
	// Verify, when set, is the recommendation checked against runs of the
	// program at several sizes (gcdoctor workers --verify).
	Verify *workers.Verification
}

// WorkersText writes the recommendation and the time split it rests on.
func WorkersText(w io.Writer, wr *Workers, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	t := newTextWriter(w, opt)
	g, rec := wr.Group, wr.Recommendation
	t.printf("%s %s in %s\n", t.style(ansiBold, "gcdoctor workers:"), g.Name, truncateLeft(wr.Trace, max(opt.Width-22-runeLen(g.Name), 12)))
	if wr.Partial {
		t.wrap("  ", "  ", t.style(ansiYellow, "PARTIAL: the trace is cut short; the time split covers what could be read."))
	}
	t.printf("\n")
	row := func(label, value, note string) {
		t.printf("  %-14s %s", label, value)
		if note != "" {
			t.printf("   %s", t.style(ansiDim, note))
		}
		t.printf("\n")
	}
	now := fmt.Sprintf("up to %d alive at once", g.PeakLive)
	if g.Count > g.PeakLive {
		now += fmt.Sprintf(" (%s goroutines over the trace, %s created in it)", countStr(int64(g.Count)), countStr(int64(g.Created)))
	}
	row("now", now, "")
	row("recommended", fmt.Sprintf("%s (range %d–%d)", plural(rec.Workers, "worker"), rec.Range[0], rec.Range[1]), "")
	t.printf("\n")
	row("running (C)", fmtNum(g.RunningMS)+" ms", "")
	row("waiting (W)", fmtNum(rec.Inputs.Syscall.Seconds()*1000+rec.Inputs.IO.Seconds()*1000)+" ms", "syscalls, network, sleep")
	row("runnable", fmtNum(g.RunnableMS)+" ms", "waiting for a CPU: not part of W")
	row("GOMAXPROCS", fmt.Sprintf("%d, target utilization %s", rec.GOMAXPROCS, fmtNum(rec.Utilization)), "")
	t.printf("\n")
	for _, s := range rec.Explanation {
		t.wrap("  ", "  ", s)
	}
	if t.err != nil || wr.Verify == nil {
		return t.err
	}
	t.printf("\n")
	if err := CompareText(w, wr.Verify.Table, opt); err != nil {
		return err
	}
	t.printf("\n%s\n", t.style(ansiBold, "Verdict"))
	for _, s := range wr.Verify.Verdict {
		t.wrap("  ", "  ", s)
	}
	return t.err
}

// WorkersJSON writes the recommendation as JSON (docs/json.md).
func WorkersJSON(w io.Writer, wr *Workers, toolVersion string) error {
	g, r := wr.Group, wr.Recommendation
	doc := object{{"schema_version", WorkersSchemaVersion}, {"tool", "gcdoctor"}}
	if toolVersion != "" {
		doc = append(doc, Field{"tool_version", toolVersion})
	}
	doc = append(doc, Field{"trace", wr.Trace}, Field{"partial", wr.Partial}, Field{"group", g.Name}, Field{"count", g.Count}, Field{"peak_live", g.PeakLive}, Field{"created", g.Created},
		Field{"workers", r.Workers}, Field{"range", r.Range}, Field{"gomaxprocs", r.GOMAXPROCS},
		Field{"utilization", r.Utilization}, Field{"wait_ratio", num(r.WaitRatio)}, Field{"queue_ratio", num(r.QueueRatio)},
		Field{"explanation", nonNil(r.Explanation)})
	if v := wr.Verify; v != nil {
		best := any(nil)
		if v.Best >= 0 {
			best = v.Sizes[v.Best]
		}
		doc = append(doc, Field{"verify", object{{"command", v.Command}, {"size_env", v.SizeEnv}, {"sizes", v.Sizes},
			{"recommended", v.Recommended}, {"current", v.Current}, {"best", best}, {"best_is_recommended", v.Best == 0},
			{"significant", v.Significant}, {"verdict", nonNil(v.Verdict)}, {"comparison", compareDoc(v.Table, toolVersion)}}})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// WorkersSchemaVersion is the version of the document WorkersJSON writes.
const WorkersSchemaVersion = 1
