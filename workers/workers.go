// Package workers sizes a worker pool from how its goroutines spend their
// time and the number of Ps (GOMAXPROCS).
//
// The count is the classic one (Goetz, Java Concurrency in Practice §8.2,
// itself Little's law applied to the processors):
//
//	N = P × U × (1 + W/C)
//
// where P is GOMAXPROCS, U the target CPU utilization (0–1], C the time a
// job spends running on a P and W the time it spends waiting for something
// outside the program (system calls, the network, sleeps). Only the ratio
// W/C matters, so totals over all workers serve as well as per-job times.
//
// Two kinds of waiting are left out of W on purpose. Time runnable, waiting
// for a P, is what too many workers cause, not what the work needs: it
// grows with the pool and would make the formula recommend ever more workers
// for an oversubscribed pool. Time waiting on the pool's input channel is
// starvation: the producer is too slow, and no number of workers fixes that.
// docs/workers.md derives the formula and discusses the edge cases.
package workers

import (
	"fmt"
	"math"
	"time"

	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/internal/plural"
)

// Times is the measured time split of a pool's worker goroutines, summed
// over the workers. Only ratios are used, so any common scale works.
type Times struct {
	Running  time.Duration // executing on a P (C)
	Runnable time.Duration // ready but waiting for a P: a symptom of oversubscription, not used in N
	Syscall  time.Duration // in system calls: part of W
	IO       time.Duration // blocked on the network, sleeping, timers: part of W
	// Starved is time waiting for input on channels and in selects: the
	// pool has nothing to do. Not part of W unless Options.ChannelWaitIsWork.
	Starved time.Duration
	// Contended is time blocked on locks (sync) and on the garbage
	// collector: it grows with the pool, like Runnable, and is not part of W.
	Contended time.Duration
	// Workers is the number of worker goroutines measured (0 if unknown).
	Workers int
}

// FromGroup takes the times of a goroutine group from an execution trace
// summary: syscall time, network, sleep and other waits make W; channel
// and select waits are starvation; sync and GC waits are contention.
func FromGroup(g *exectrace.Group) Times {
	ms := func(v float64) time.Duration { return time.Duration(v * 1e6) }
	b := g.Blocked
	return Times{
		Running:   ms(g.RunningMS),
		Runnable:  ms(g.RunnableMS),
		Syscall:   ms(g.SyscallMS),
		IO:        ms(b.NetworkMS + b.SleepMS + b.OtherMS),
		Starved:   ms(b.ChanMS + b.SelectMS),
		Contended: ms(b.SyncMS + b.GCMS),
		Workers:   g.PeakLive,
	}
}

// Options tunes Recommend. The zero value targets full utilization.
type Options struct {
	// Utilization is the target share of the Ps the pool may keep busy,
	// in (0, 1]; 1 when zero or out of range.
	Utilization float64
	// ChannelWaitIsWork counts Starved time as waiting on work (part of W):
	// right for workers that wait on channels for results of outside work,
	// such as responses delivered by a client library, wrong for a pool
	// that waits on its own job channel.
	ChannelWaitIsWork bool
	// Max caps the recommendation (default 10000).
	Max int
}

// Check says, in terms of the command's flags, what is wrong with the
// options a user gave: Utilization must be in (0, 1].
func (o *Options) Check() error {
	if !(o.Utilization > 0 && o.Utilization <= 1) {
		return fmt.Errorf("--utilization must be more than 0 and at most 1, not %v", o.Utilization)
	}
	return nil
}

// Recommendation is a worker count with its inputs and reasoning.
type Recommendation struct {
	// Workers is the recommended count: ⌈P × U × (1 + W/C)⌉, at least 1.
	Workers int
	// Range is the band of counts expected to do about as well: from
	// Workers, where the Ps just saturate if every job took its average
	// time, to twice that, which absorbs the variation of real jobs; beyond
	// it extra workers only queue for Ps and hold memory.
	Range [2]int

	GOMAXPROCS  int     // P
	Utilization float64 // U
	// WaitRatio is W/C: the time waiting on outside work per unit of
	// running time.
	WaitRatio float64
	// QueueRatio is Runnable/C: on average, how many workers waited for a P
	// per worker running. Well above 1 means the pool is oversubscribed.
	QueueRatio float64
	// Exact is P × U × (1 + W/C) before rounding.
	Exact  float64
	Inputs Times
	// Explanation gives the computation and caveats as sentences.
	Explanation []string
}

// Recommend computes the worker count for the measured times t on
// gomaxprocs Ps.
func Recommend(t Times, gomaxprocs int, opts Options) Recommendation {
	p := max(gomaxprocs, 1)
	u := opts.Utilization
	if !(u > 0 && u <= 1) {
		u = 1
	}
	limit := opts.Max
	if limit <= 0 {
		limit = 10000
	}
	r := Recommendation{GOMAXPROCS: p, Utilization: u, Inputs: t}
	say := func(format string, args ...any) {
		r.Explanation = append(r.Explanation, fmt.Sprintf(format, args...))
	}
	if gomaxprocs < 1 {
		say("GOMAXPROCS was not known; assumed 1.")
	}

	w := t.Syscall + t.IO
	if opts.ChannelWaitIsWork {
		w += t.Starved
	}
	if t.Running <= 0 {
		r.Workers = max(int(math.Ceil(float64(p)*u)), 1)
		r.Range = [2]int{r.Workers, r.Workers}
		r.Exact = float64(p) * u
		say("The workers did not run at all in the measurement, so the share of waiting is unknown: %d (P × U) is only a starting point.", r.Workers)
		return r
	}
	c := float64(t.Running)
	r.WaitRatio = float64(w) / c
	r.QueueRatio = float64(t.Runnable) / c
	r.Exact = float64(p) * u * (1 + r.WaitRatio)
	r.Workers = min(max(int(math.Ceil(r.Exact-1e-9)), 1), limit)
	r.Range = [2]int{r.Workers, min(max(int(math.Ceil(2*r.Exact-1e-9)), r.Workers), limit)}

	say("N = P × U × (1 + W/C) = %d × %.2f × (1 + %s / %s) = %.1f → %s.",
		p, u, round(w), round(t.Running), r.Exact, plural.S(r.Workers, "worker"))
	if w == 0 {
		say("The workers never waited on outside work: the pool is CPU-bound, and more workers than Ps only queue for them.")
	} else {
		say("Each unit of running time came with %.2f units of waiting in system calls or I/O (W/C), which other workers can fill with work.", r.WaitRatio)
	}
	if r.Exact > float64(limit) {
		say("Capped at %d: the pool waits so much that the formula asks for more; consider asynchronous I/O or batching instead.", limit)
	}
	if t.Runnable > 0 {
		say("Time runnable, waiting for a P (%s, %.1f per unit of running time), is left out: it is caused by having more workers than Ps can serve, not by the work.", round(t.Runnable), r.QueueRatio)
	}
	if t.Workers > 0 {
		switch {
		case t.Workers > r.Range[1]:
			say("The measured pool had %s, above the range %d–%d: it is oversubscribed; fewer workers would keep the Ps as busy with less queueing, memory and GC work.", plural.S(t.Workers, "worker"), r.Range[0], r.Range[1])
		case t.Workers < r.Range[0]:
			say("The measured pool had %s, below %d: the Ps sit idle while workers wait on I/O; more workers would finish sooner.", plural.S(t.Workers, "worker"), r.Range[0])
		default:
			say("The measured pool had %s, within the range %d–%d.", plural.S(t.Workers, "worker"), r.Range[0], r.Range[1])
		}
	}
	if t.Starved > 0 && !opts.ChannelWaitIsWork {
		busy := t.Running + t.Runnable + w
		if t.Starved > busy {
			say("The workers spent %s waiting for input on channels, more than on everything else: the producer limits throughput, and more workers will not help.", round(t.Starved))
		} else {
			say("Channel and select waits (%s) count as waiting for input, not as work; if the workers wait on channels for results of outside work, set ChannelWaitIsWork.", round(t.Starved))
		}
	}
	if t.Contended > t.Running/2 {
		say("The workers spent %s blocked on locks or the garbage collector: that grows with the pool, and fewer workers (or less allocation and sharing) would reduce it.", round(t.Contended))
	}
	if u < 1 {
		say("U = %.2f leaves %.0f%% of the Ps for the rest of the program.", u, (1-u)*100)
	}
	return r
}

// round shortens a duration for messages.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
