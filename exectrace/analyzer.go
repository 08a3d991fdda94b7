package exectrace

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/exp/trace"
)

// blockKind is the reason class of a blocked goroutine.
type blockKind uint8

const (
	blockChan blockKind = iota
	blockSelect
	blockSync
	blockNetwork
	blockSleep
	blockGC
	blockOther
	numBlockKinds
)

// blockKindOf maps the runtime's block reason strings (runtime's
// traceBlockReasonStrings) to classes.
func blockKindOf(reason string) blockKind {
	switch reason {
	case "chan send", "chan receive":
		return blockChan
	case "select":
		return blockSelect
	case "sync", "sync.(*Cond).Wait":
		return blockSync
	case "network":
		return blockNetwork
	case "sleep":
		return blockSleep
	case "GC mark assist wait for work", "wait until GC ends", "GC weak to strong wait",
		// The runtime parks a goroutine as "preempted" when the collector
		// suspends it to scan its stack.
		"preempted":
		return blockGC
	}
	return blockOther
}

// inGCRuntime reports whether a stack's innermost frame is in the
// collector: a goroutine that blocks in runtime.gcStart or runtime.gcMarkDone
// waits on the collector's semaphores, which the trace reports as "sync",
// typically when an allocation tries to start or finish a cycle that
// another goroutine (often runtime.GC) is running.
func inGCRuntime(stk trace.Stack) bool {
	for f := range stk.Frames() {
		return strings.HasPrefix(f.Func, "runtime.gc")
	}
	return false
}

// workerMode is the kind of background mark work a goroutine does in its
// current run, from the label the runtime emits when a worker starts.
type workerMode uint8

const (
	notWorker workerMode = iota
	dedicatedWorker
	fractionalWorker
	idleWorker
	numWorkerModes
)

// goroutine is the state of one live goroutine.
type goroutine struct {
	group   *groupAcc // nil until a stack names the start function
	state   trace.GoState
	block   blockKind // while state is GoWaiting
	created bool      // created during the trace
	// inAssist is set inside a mark assist range; worker is the mark worker
	// mode of the current run.
	inAssist bool
	worker   workerMode

	first       trace.Time // first seen
	since       trace.Time // entered state
	workerSince trace.Time // the current run became a mark worker's
	assistSince trace.Time // running inside an assist since (state running and inAssist)

	running, runnable, syscall, assist int64 // ns
	blocked                            [numBlockKinds]int64
	workWaits                          int // waits on a channel or select
	waits                              int // waits of any kind but the GC's, and system calls
}

// gcBusy reports whether the goroutine keeps a P busy with GC work that
// counts against mutator utilization.
func (g *goroutine) gcBusy() bool {
	return g.state == trace.GoRunning && (g.inAssist || g.worker == dedicatedWorker || g.worker == fractionalWorker)
}

// groupAcc accumulates the goroutines of one start function.
type groupAcc struct {
	name                               string
	count, created, live, peakLive     int
	running, runnable, syscall, assist int64 // ns
	blocked                            [numBlockKinds]int64
	workWaits, waits                   int
	share                              shareHist
	life                               logHist
}

const unknownGroup = "(unknown)"

// analyzer holds the state of one pass over a trace.
type analyzer struct {
	opts   Options
	format int
	events int64
	syncs  int64 // Sync events among them: the reader makes one even of nothing

	started     bool
	first, last trace.Time
	syncTime    trace.Time // time of the latest Sync event

	gs                      map[trace.GoID]*goroutine
	forever                 map[trace.GoID]struct{} // blocked forever, already folded
	lastID                  trace.GoID              // the goroutine lastG is
	lastG                   *goroutine              // nil when unset
	groups                  map[string]*groupAcc
	live, peakLive, created int
	seen                    int

	procs, minProcs, maxProcs int

	// Mark phase.
	inMark, markWhole bool // markWhole: the phase began inside the trace
	markStart         trace.Time
	cycles            int
	markQ             quantiles

	// Stop-the-world.
	inSTW     bool
	stwGC     bool
	stwStart  trace.Time
	stwReason string
	// running holds the goroutines in the running state: at most one a P,
	// so it stays small. pending holds those that were running, besides
	// the one stopping the world, when the current stop began and have
	// not stopped since; stwHeld is when the last of them stopped, and
	// stwHolder which it was.
	running        map[trace.GoID]*goroutine
	pending        map[trace.GoID]*goroutine
	stwRunning     int
	stwHeld        trace.Time
	stwHolder      *goroutine
	stwHolderID    trace.GoID
	stops          []Stop
	stopsDropped   int
	stwAll, stwGCQ quantiles
	stwOther       quantiles
	gcSTWProcNS    float64
	reasons        map[string]string // interned reasons
	workerNS       [numWorkerModes]int64
	assistNS       int64
	sweepStart     []trace.Time // by P; 0 when not sweeping
	sweepNS        int64
	heapLive       uint64
	heapGoal       uint64
	heapPeak       uint64
	heapGoalMax    uint64
	heap           heapSeries
	gcBusy         int // goroutines running GC work
	util           utilSeries
	utilStarted    bool

	// What the bounds in Options left out.
	unfollowed int64 // transitions of goroutines beyond MaxGoroutines
	otherGroup bool  // start functions beyond MaxGroups were merged
}

func newAnalyzer(opts Options) *analyzer {
	if len(opts.MMUWindows) == 0 {
		opts.MMUWindows = DefaultMMUWindows
	}
	if opts.HeapPoints <= 0 {
		opts.HeapPoints = 512
	}
	if opts.MaxStops <= 0 {
		opts.MaxStops = 100000
	}
	if opts.MaxGroups <= 0 {
		opts.MaxGroups = 10000
	}
	if opts.MaxGoroutines <= 0 {
		opts.MaxGoroutines = 1 << 20
	}
	if opts.MaxUtilSteps <= 0 {
		opts.MaxUtilSteps = 1 << 22
	}
	opts.MaxStops = min(opts.MaxStops, maxStopsLimit)
	opts.HeapPoints = min(opts.HeapPoints, maxHeapPoints)
	opts.MaxGroups = min(opts.MaxGroups, maxGroupsLimit)
	opts.MaxGoroutines = min(opts.MaxGoroutines, maxGoroutinesLm)
	opts.MaxUtilSteps = min(opts.MaxUtilSteps, maxUtilStepsLm)
	if len(opts.MMUWindows) > maxMMUWindows {
		opts.MMUWindows = opts.MMUWindows[:maxMMUWindows]
	}
	return &analyzer{
		opts:    opts,
		gs:      make(map[trace.GoID]*goroutine),
		forever: make(map[trace.GoID]struct{}),
		running: make(map[trace.GoID]*goroutine),
		pending: make(map[trace.GoID]*goroutine),
		groups:  make(map[string]*groupAcc),
		reasons: make(map[string]string),
		heap:    heapSeries{max: opts.HeapPoints},
		util:    utilSeries{max: opts.MaxUtilSteps},
	}
}

func (a *analyzer) event(ev *trace.Event) {
	a.events++
	t := ev.Time()
	if !a.started {
		a.started = true
		a.first, a.syncTime = t, t
		a.heap.start = int64(t)
	}
	a.last = t
	switch ev.Kind() {
	case trace.EventSync:
		a.syncTime = t
		a.syncs++
	case trace.EventStateTransition:
		st := ev.StateTransition()
		if st.Resource.Kind == trace.ResourceGoroutine {
			a.goTransition(&st, t)
		}
	case trace.EventRangeBegin, trace.EventRangeActive, trace.EventRangeEnd:
		a.rangeEvent(ev, t)
	case trace.EventLabel:
		a.label(ev, t)
	case trace.EventMetric:
		a.metric(ev, t)
	}
}

// goTransition follows a goroutine from state to state, charging the time
// spent in the state it leaves.
func (a *analyzer) goTransition(st *trace.StateTransition, t trace.Time) {
	id := st.Resource.Goroutine()
	from, to := st.Goroutine()
	g := a.lookup(id)
	if g == nil {
		if _, ok := a.forever[id]; ok {
			// Already folded; later generations restate its status.
			if to == trace.GoNotExist {
				delete(a.forever, id)
			}
			return
		}
		if to == trace.GoNotExist {
			return
		}
		if len(a.gs)+len(a.forever) >= a.opts.MaxGoroutines {
			a.unfollowed++
			return
		}
		g = &goroutine{state: from, first: t, since: t, created: from == trace.GoNotExist}
		if from == trace.GoUndetermined {
			// Seen for the first time in this generation: like go tool
			// trace, count its state since the generation began.
			g.first, g.since = a.syncTime, a.syncTime
		}
		a.gs[id] = g
		a.lastID, a.lastG = id, g
		a.live++
		a.peakLive = max(a.peakLive, a.live)
		if g.created {
			a.created++
		}
	}
	if g.group == nil {
		a.name(g, st.Stack)
	}
	if from == to || g.state == to {
		return
	}
	busy := g.gcBusy()
	a.leave(g, t)
	a.runningChanged(id, g, to, t)
	if g.state == trace.GoUndetermined {
		// The time since the generation began is charged to the new state.
		t0 := g.since
		g.state = to
		g.since = t0
	} else {
		g.state, g.since = to, t
	}
	switch to {
	case trace.GoRunning:
		if g.inAssist {
			g.assistSince = t
		}
	case trace.GoWaiting:
		if st.Reason == "forever" {
			// Never wakes up again: finished, as far as its figures go.
			a.exit(id, g, t, busy)
			a.forever[id] = struct{}{}
			return
		}
		g.block = blockKindOf(st.Reason)
		if g.block == blockSync && inGCRuntime(st.Stack) {
			g.block = blockGC
		}
		if g.block == blockChan || g.block == blockSelect || st.Reason == "sync.(*Cond).Wait" {
			g.workWaits++
		}
		if g.block != blockGC {
			g.waits++
		}
	case trace.GoSyscall:
		g.waits++
	case trace.GoNotExist:
		a.exit(id, g, t, busy)
		return
	}
	a.busyChanged(busy, g.gcBusy(), t)
}

// runningChanged keeps the set of running goroutines as g goes to state
// to, and notes the time a goroutine that a stop waits for stops running.
func (a *analyzer) runningChanged(id trace.GoID, g *goroutine, to trace.GoState, t trace.Time) {
	if to == trace.GoRunning {
		a.running[id] = g
		return
	}
	delete(a.running, id)
	if _, ok := a.pending[id]; ok {
		delete(a.pending, id)
		a.stwHeld, a.stwHolder, a.stwHolderID = t, g, id
	}
}

// leave charges the time since g entered its current state, up to t.
func (a *analyzer) leave(g *goroutine, t trace.Time) {
	d := int64(t - g.since)
	if d < 0 {
		d = 0
	}
	switch g.state {
	case trace.GoRunning:
		g.running += d
		if g.worker != notWorker {
			a.workerNS[g.worker] += max(int64(t-g.workerSince), 0)
			g.worker = notWorker
		}
		if g.inAssist {
			ad := max(int64(t-g.assistSince), 0)
			g.assist += ad
			a.assistNS += ad
		}
	case trace.GoRunnable:
		g.runnable += d
	case trace.GoWaiting:
		g.blocked[g.block] += d
	case trace.GoSyscall:
		g.syscall += d
	}
}

// exit folds a goroutine that ended into its group.
func (a *analyzer) exit(id trace.GoID, g *goroutine, t trace.Time, busy bool) {
	g.state = trace.GoNotExist
	a.busyChanged(busy, false, t)
	a.fold(g, t)
	delete(a.gs, id)
	if a.lastID == id {
		a.lastG = nil
	}
}

// lookup returns the live goroutine id, or nil. Consecutive events often
// concern the same goroutine, so the last one found is kept at hand.
func (a *analyzer) lookup(id trace.GoID) *goroutine {
	if a.lastG != nil && a.lastID == id {
		return a.lastG
	}
	g := a.gs[id]
	if g != nil {
		a.lastID, a.lastG = id, g
	}
	return g
}

func (a *analyzer) fold(g *goroutine, t trace.Time) {
	grp := g.group
	if grp == nil {
		grp = a.group(unknownGroup)
		grp.live++ // balanced below
	}
	grp.live--
	grp.count++
	if g.created {
		grp.created++
	}
	grp.running += g.running
	grp.runnable += g.runnable
	grp.syscall += g.syscall
	grp.assist += g.assist
	for i, b := range g.blocked {
		grp.blocked[i] += b
	}
	grp.workWaits += g.workWaits
	grp.waits += g.waits
	life := int64(t - g.first)
	if life > 0 {
		grp.share.add(float64(g.runnable) / float64(life))
	}
	grp.life.add(max(life, 0))
	a.live--
	a.seen++
}

// name assigns g to the group of its start function: the outermost frame
// of a stack of the goroutine, as go tool trace names goroutines.
func (a *analyzer) name(g *goroutine, stk trace.Stack) {
	var root string
	for f := range stk.Frames() {
		root = f.Func
	}
	if root == "" {
		return
	}
	grp := a.group(root)
	g.group = grp
	grp.live++
	grp.peakLive = max(grp.peakLive, grp.live)
}

func (a *analyzer) group(name string) *groupAcc {
	grp := a.groups[name]
	if grp == nil {
		if len(a.groups) >= a.opts.MaxGroups {
			// One slot is kept for the group that gathers the rest.
			if grp = a.groups[OtherGroups]; grp == nil {
				grp = &groupAcc{name: OtherGroups}
				a.groups[OtherGroups] = grp
			}
			a.otherGroup = true
			return grp
		}
		grp = &groupAcc{name: strings.Clone(name)}
		a.groups[grp.name] = grp
	}
	return grp
}

func (a *analyzer) label(ev *trace.Event, t trace.Time) {
	l := ev.Label()
	if l.Resource.Kind != trace.ResourceGoroutine {
		return
	}
	var mode workerMode
	switch l.Label {
	case "GC (dedicated)":
		mode = dedicatedWorker
	case "GC (fractional)":
		mode = fractionalWorker
	case "GC (idle)":
		mode = idleWorker
	default:
		return
	}
	g := a.lookup(l.Resource.Goroutine())
	if g == nil || g.state != trace.GoRunning {
		return
	}
	busy := g.gcBusy()
	if g.worker != notWorker {
		a.workerNS[g.worker] += max(int64(t-g.workerSince), 0)
	}
	g.worker, g.workerSince = mode, t
	a.busyChanged(busy, g.gcBusy(), t)
}

const (
	rangeMark   = "GC concurrent mark phase"
	rangeAssist = "GC mark assist"
	rangeSweep  = "GC incremental sweep"
	rangeSTW    = "stop-the-world ("
)

func (a *analyzer) rangeEvent(ev *trace.Event, t trace.Time) {
	r := ev.Range()
	begin := ev.Kind() != trace.EventRangeEnd
	switch {
	case r.Name == rangeMark:
		if begin {
			if !a.inMark {
				a.inMark, a.markStart = true, t
				a.markWhole = ev.Kind() == trace.EventRangeBegin
			}
			return
		}
		a.cycles++
		if a.inMark && a.markWhole {
			a.markQ.add(float64(t-a.markStart) / 1e6)
		}
		a.inMark = false
	case r.Name == rangeAssist:
		if r.Scope.Kind != trace.ResourceGoroutine {
			return
		}
		g := a.lookup(r.Scope.Goroutine())
		if g == nil || g.inAssist == begin {
			return
		}
		busy := g.gcBusy()
		if g.state == trace.GoRunning {
			if begin {
				g.assistSince = t
			} else {
				d := max(int64(t-g.assistSince), 0)
				g.assist += d
				a.assistNS += d
			}
		}
		g.inAssist = begin
		a.busyChanged(busy, g.gcBusy(), t)
	case r.Name == rangeSweep:
		p := r.Scope.Proc()
		if r.Scope.Kind != trace.ResourceProc || p < 0 || p >= 1<<16 {
			return
		}
		for int(p) >= len(a.sweepStart) {
			a.sweepStart = append(a.sweepStart, 0)
		}
		if begin {
			if a.sweepStart[p] == 0 {
				a.sweepStart[p] = t
			}
		} else if s := a.sweepStart[p]; s != 0 {
			a.sweepNS += max(int64(t-s), 0)
			a.sweepStart[p] = 0
		}
	case strings.HasPrefix(r.Name, rangeSTW):
		var stopper trace.GoID = trace.NoGoroutine
		if r.Scope.Kind == trace.ResourceGoroutine {
			stopper = r.Scope.Goroutine()
		} else {
			stopper = ev.Goroutine()
		}
		a.stw(r.Name, begin, t, stopper)
	}
}

// stw follows stop-the-world ranges, named "stop-the-world (reason)",
// begun by goroutine stopper. A stop first waits for every running
// goroutine to stop: one that keeps running holds up the whole program.
func (a *analyzer) stw(name string, begin bool, t trace.Time, stopper trace.GoID) {
	if begin {
		if a.inSTW {
			return
		}
		clear(a.pending)
		for id, g := range a.running {
			if id != stopper {
				a.pending[id] = g
			}
		}
		a.stwRunning = len(a.pending)
		a.stwHeld, a.stwHolder, a.stwHolderID = t, nil, 0
		reason := strings.TrimSuffix(name[len(rangeSTW):], ")")
		if r, ok := a.reasons[reason]; ok {
			reason = r
		} else if len(a.reasons) < 1024 {
			reason = strings.Clone(reason)
			a.reasons[reason] = reason
		}
		a.inSTW, a.stwStart, a.stwReason = true, t, reason
		// go tool trace's rule: the collector's pauses name the GC.
		a.stwGC = strings.Contains(reason, "GC")
		a.setUtil(t)
		return
	}
	if !a.inSTW {
		return
	}
	a.inSTW = false
	ms := float64(t-a.stwStart) / 1e6
	a.stwAll.add(ms)
	if a.stwGC {
		a.stwGCQ.add(ms)
		a.gcSTWProcNS += float64(t-a.stwStart) * float64(max(a.procs, 1))
	} else {
		a.stwOther.add(ms)
	}
	if len(a.pending) > 0 {
		// Still running when the world restarted: the trace lost their
		// stop, or they never stopped; either way they held it to the end.
		for id, g := range a.pending {
			if a.stwHolder == nil || id < a.stwHolderID {
				a.stwHolder, a.stwHolderID = g, id
			}
		}
		a.stwHeld = t
		clear(a.pending)
	}
	if len(a.stops) < a.opts.MaxStops {
		st := Stop{
			AtMS:       float64(a.stwStart-a.first) / 1e6,
			DurationMS: ms,
			Reason:     a.stwReason,
			GC:         a.stwGC,
			Running:    a.stwRunning,
			StoppingMS: float64(max(a.stwHeld-a.stwStart, 0)) / 1e6,
		}
		if h := a.stwHolder; h != nil {
			st.HolderID = uint64(a.stwHolderID)
			st.Holder = unknownGroup
			if h.group != nil {
				st.Holder = h.group.name
			}
		}
		a.stops = append(a.stops, st)
	} else {
		a.stopsDropped++
	}
	a.setUtil(t)
}

func (a *analyzer) metric(ev *trace.Event, t trace.Time) {
	m := ev.Metric()
	if m.Value.Kind() != trace.ValueUint64 {
		return
	}
	v := m.Value.Uint64()
	switch m.Name {
	case "/sched/gomaxprocs:threads":
		if v == 0 || v > 1<<20 {
			return
		}
		a.procs = int(v)
		if a.minProcs == 0 || a.procs < a.minProcs {
			a.minProcs = a.procs
		}
		a.maxProcs = max(a.maxProcs, a.procs)
		a.setUtil(t)
	case "/memory/classes/heap/objects:bytes":
		a.heapLive = v
		a.heapPeak = max(a.heapPeak, v)
		a.heap.add(int64(t), a.heapLive, a.heapGoal)
	case "/gc/heap/goal:bytes":
		a.heapGoal = v
		a.heapGoalMax = max(a.heapGoalMax, v)
		a.heap.add(int64(t), a.heapLive, a.heapGoal)
	}
}

// busyChanged updates the count of Ps doing GC work after a goroutine's
// gcBusy went from before to after.
func (a *analyzer) busyChanged(before, after bool, t trace.Time) {
	if before == after {
		return
	}
	if after {
		a.gcBusy++
	} else {
		a.gcBusy--
	}
	a.setUtil(t)
}

// setUtil records the mutator utilization from t on. Nothing is recorded
// before GOMAXPROCS is known, as in go tool trace.
func (a *analyzer) setUtil(t trace.Time) {
	if a.procs == 0 {
		return
	}
	u := float32(0)
	if !(a.inSTW && a.stwGC) {
		busy := min(max(a.gcBusy, 0), a.procs)
		u = 1 - float32(busy)/float32(a.procs)
	}
	a.util.add(int64(t), u)
}

// finish charges the goroutines still alive up to the last event and builds
// the result.
func (a *analyzer) finish() *Result {
	end := a.last
	res := &Result{
		Duration:    a.last.Sub(a.first),
		TraceFormat: a.format,
		GoVersion:   goVersions(a.format),
		Events:      a.events,
	}
	res.Goroutines.LiveAtEnd = a.live
	a.lastG = nil
	for id, g := range a.gs {
		a.leave(g, end)
		g.since = end
		a.fold(g, end)
		delete(a.gs, id)
	}
	secs := res.Duration.Seconds()
	perSec := func(n int) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	res.Goroutines.Seen = a.seen
	res.Goroutines.Created = a.created
	res.Goroutines.CreatedPerSec = perSec(a.created)
	res.Goroutines.PeakLive = a.peakLive
	res.Procs = Procs{GOMAXPROCS: a.procs, Max: a.maxProcs, Min: a.minProcs}

	for _, grp := range a.groups {
		if grp.count == 0 {
			continue
		}
		g := Group{
			Name:          grp.name,
			Runtime:       strings.HasPrefix(grp.name, "runtime.") || strings.HasPrefix(grp.name, "runtime/"),
			Count:         grp.count,
			Created:       grp.created,
			CreatedPerSec: perSec(grp.created),
			PeakLive:      max(grp.peakLive, 1),
			RunningMS:     ms(grp.running),
			RunnableMS:    ms(grp.runnable),
			SyscallMS:     ms(grp.syscall),
			AssistMS:      ms(grp.assist),
			WorkWaits:     grp.workWaits,
			Waits:         grp.waits,
			Blocked: Blocked{
				ChanMS:    ms(grp.blocked[blockChan]),
				SelectMS:  ms(grp.blocked[blockSelect]),
				SyncMS:    ms(grp.blocked[blockSync]),
				NetworkMS: ms(grp.blocked[blockNetwork]),
				SleepMS:   ms(grp.blocked[blockSleep]),
				GCMS:      ms(grp.blocked[blockGC]),
				OtherMS:   ms(grp.blocked[blockOther]),
			},
			RunnableShare: grp.share.dist(),
			LifetimeMS:    grp.life.distMS(),
		}
		res.Groups = append(res.Groups, g)
	}
	slices.SortFunc(res.Groups, func(x, y Group) int {
		if c := cmp.Compare(y.RunningMS+y.RunnableMS, x.RunningMS+x.RunnableMS); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})

	gc := &res.GC
	gc.Cycles = a.cycles
	gc.MarkWallMS = a.markQ.Sum()
	gc.MarkWallMaxMS = a.markQ.Max()
	gc.STW = a.stwAll.stats()
	gc.GCSTW = a.stwGCQ.stats()
	gc.OtherSTW = a.stwOther.stats()
	gc.Stops = a.stops
	gc.StopsDropped = a.stopsDropped
	gc.Heap = a.heap.samples(a.first)
	gc.HeapPeakBytes = a.heapPeak
	gc.HeapGoalMaxBytes = a.heapGoalMax
	cpu := &gc.CPU
	cpu.DedicatedMS = ms(a.workerNS[dedicatedWorker])
	cpu.FractionalMS = ms(a.workerNS[fractionalWorker])
	cpu.IdleMS = ms(a.workerNS[idleWorker])
	cpu.AssistMS = ms(a.assistNS)
	cpu.STWMS = a.gcSTWProcNS / 1e6
	cpu.SweepMS = ms(a.sweepNS)
	if capacity := float64(res.Duration) / 1e6 * float64(max(a.procs, 1)); capacity > 0 {
		used := cpu.DedicatedMS + cpu.FractionalMS + cpu.AssistMS + cpu.STWMS
		cpu.Fraction = min(used/capacity, 1)
		cpu.FractionWithIdle = min((used+cpu.IdleMS)/capacity, 1)
	}

	mmuEnd := int64(end)
	if a.util.full {
		mmuEnd = a.util.ts[len(a.util.ts)-1]
	}
	res.MMU = a.util.curve(a.opts.MMUWindows, mmuEnd)

	if a.unfollowed > 0 {
		res.Caveats = append(res.Caveats, fmt.Sprintf("more than %d goroutines alive at once: %d state changes of the others were not followed, so goroutine and group figures leave them out", a.opts.MaxGoroutines, a.unfollowed))
	}
	if a.otherGroup {
		res.Caveats = append(res.Caveats, fmt.Sprintf("more than %d start functions: the goroutines of the others are counted together as %s", a.opts.MaxGroups, OtherGroups))
	}
	if a.util.full {
		res.Caveats = append(res.Caveats, fmt.Sprintf("the MMU curve covers the first %.0f ms of the trace: it changed utilization more than %d times", float64(mmuEnd-int64(a.first))/1e6, a.opts.MaxUtilSteps))
	}
	return res
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }
