package pacer

import (
	"fmt"
	"math"
)

// Objective is what a recommendation optimises for.
type Objective uint8

// The objectives Recommend knows.
const (
	// CPU spends the memory budget to cut GC CPU as far as it safely can.
	CPU Objective = iota
	// Latency also cuts GC CPU but keeps the heap well below the limit, so
	// that the limit rarely sets the goal: near the limit cycles come more
	// often and mark assists slow down the goroutines that allocate.
	Latency
)

// String returns "cpu" or "latency".
func (o Objective) String() string {
	if o == Latency {
		return "latency"
	}
	return "cpu"
}

// Recommendation is the setting Recommend chose and what it should change.
type Recommendation struct {
	Setting  Setting
	Budget   int64      // the memory budget, bytes
	Baseline Prediction // the observed setting, replayed by the model
	Expected Prediction // the recommended setting
	// Gain states the expected change as numbers, such as "GC CPU 12% →
	// 3%, peak heap 450 → 900 MiB, under the 2 GiB limit".
	Gain    string
	Reasons []string // why this setting, as sentences
	Caveats []string // what to avoid or watch, as sentences
}

// candidateGOGC are the GOGC values Recommend tries under the limit.
var candidateGOGC = []int{100, 150, 200, 300, 400, 600, 800, 1200, 1600, 2400, 3200, Off}

// limitShare is the part of the budget given to GOMEMLIMIT: 90% below
// 2 GiB and 95% above. The rest is headroom for memory the Go runtime does
// not count (the binary's text, cgo and C libraries, the kernel's page
// cache charged to a container) and for the limit's own pacing error: a
// limit at 100% of a container's limit gets the process OOM-killed before
// the GC reacts.
func limitShare(budget int64) int64 {
	f := 0.90
	if budget >= 2<<30 {
		f = 0.95
	}
	// Whole MiB, so that the value reads well in GOMEMLIMIT.
	l := int64(math.Round(float64(budget)*f/(1<<20))) << 20
	if l > budget*95/100 {
		l -= 1 << 20
	}
	return l
}

// Recommend chooses GOGC and GOMEMLIMIT for a memory budget in bytes (a
// container's memory limit, say) and an objective. GOMEMLIMIT is 90–95% of
// the budget; GOGC is the smallest value whose predicted GC CPU is within
// 10% of the best safe one, so the heap grows no more than it must, where
// safe means a death-spiral risk of at most low (none for Latency), an RSS
// estimate within the limit, and for Latency a peak heap below 80% of the
// limit's heap share.
func Recommend(m *Model, budget int64, obj Objective) Recommendation {
	rec := Recommendation{Budget: budget, Baseline: m.Predict(m.Observed)}
	limit := limitShare(budget)
	if limit <= 0 {
		limit = budget
	}
	share := limitHeapGoal(float64(limit)/(1<<20), m.nonHeap(float64(limit)/(1<<20), m.StacksMiB), 0).MiB
	var best *Prediction
	var preds []Prediction
	for _, g := range candidateGOGC {
		p := m.Predict(Setting{GOGC: g, MemoryLimit: limit})
		if !safe(p, obj, limit, share) {
			continue
		}
		preds = append(preds, p)
		if best == nil || p.GCCPUMS.Value < best.GCCPUMS.Value {
			best = &preds[len(preds)-1]
		}
	}
	if best == nil {
		// Nothing is safe: the live heap does not fit the budget. Keep the
		// observed GOGC and set the limit anyway, as a backstop.
		rec.Setting = Setting{GOGC: m.Observed.GOGC, MemoryLimit: limit}
		if rec.Setting.GOGC == Off {
			rec.Setting.GOGC = 100
		}
		rec.Expected = m.Predict(rec.Setting)
		if m.LiveMaxMiB >= 0.8*share {
			rec.Caveats = append(rec.Caveats, fmt.Sprintf("no setting is safe in a %s budget: the live heap (up to %.0f MiB) leaves too little of the limit's heap share (about %.0f MiB); reduce the live heap or raise the budget", FormatSize(budget), m.LiveMaxMiB, share))
		} else {
			rec.Caveats = append(rec.Caveats, fmt.Sprintf("the %s budget is too small to keep the heap below 80%% of the limit's heap share (about %.0f MiB) at any GOGC: keeping GOGC=%s, with the limit as a backstop", FormatSize(budget), share, gogcString(rec.Setting.GOGC)))
		}
	} else {
		for i := range preds {
			if preds[i].GCCPUMS.Value <= best.GCCPUMS.Value*1.10 {
				rec.Setting, rec.Expected = preds[i].Setting, preds[i]
				break
			}
		}
		rec.Reasons = append(rec.Reasons,
			fmt.Sprintf("GOMEMLIMIT=%s is %.0f%% of the %s budget: the rest is headroom for memory the runtime does not count, since a limit at 100%% of a container limit leads to OOM kills", GOMEMLIMIT(limit), float64(limit)/float64(budget)*100, FormatSize(budget)),
			fmt.Sprintf("GOGC=%s is the smallest setting within 10%% of the lowest predicted GC CPU that keeps the death-spiral risk %s", gogcString(rec.Setting.GOGC), maxRisk(obj)))
	}
	b, e := rec.Baseline, rec.Expected
	rec.Gain = fmt.Sprintf("GC CPU %s → %s, peak heap %.0f → %.0f MiB, RSS about %.0f MiB, under the %s limit",
		pct(b.GCCPUFraction.Value), pct(e.GCCPUFraction.Value), b.PeakHeap.Value/(1<<20), e.PeakHeap.Value/(1<<20), e.RSS.Value/(1<<20), FormatSize(limit))
	if e.Risk > RiskLow {
		rec.Caveats = append(rec.Caveats, fmt.Sprintf("death-spiral risk %s: %s", e.Risk, e.RiskReason))
	} else if e.Risk == RiskLow {
		rec.Reasons = append(rec.Reasons, fmt.Sprintf("death-spiral risk low: %s", e.RiskReason))
	}
	rec.Caveats = append(rec.Caveats,
		"do not add a heap ballast (a large allocation kept only to raise the heap goal): since Go 1.19 GOMEMLIMIT with a higher GOGC does the same job without the ballast's pitfalls, and a ballast counts as live heap against the limit",
		"never run GOGC=off without GOMEMLIMIT: the heap then grows until the process is killed")
	if m.GoMinor < 19 {
		rec.Caveats = append(rec.Caveats, fmt.Sprintf("GOMEMLIMIT needs Go 1.19 and the log looks like Go 1.%d: upgrade first", m.GoMinor))
	}
	return rec
}

func safe(p Prediction, obj Objective, limit int64, shareMiB float64) bool {
	if p.Risk > maxRisk(obj) || p.RSS.High > float64(limit) {
		return false
	}
	if obj == Latency && p.PeakHeap.High > 0.8*shareMiB*(1<<20) {
		return false
	}
	return true
}

func maxRisk(obj Objective) Risk {
	if obj == Latency {
		return RiskNone
	}
	return RiskLow
}

func gogcString(g int) string {
	if g < 0 {
		return "off"
	}
	return fmt.Sprint(g)
}

func pct(f float64) string {
	if !Valid(f) {
		return "?"
	}
	if f < 0.1 {
		return fmt.Sprintf("%.1f%%", f*100)
	}
	return fmt.Sprintf("%.0f%%", math.Round(f*100))
}
