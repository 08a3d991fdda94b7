package heapprof

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gcdoctor/gcdoctor/internal/plural"
)

// SortBy selects the value sites are ranked by.
type SortBy int

// The values sites can be ranked by.
const (
	ByAllocSpace   SortBy = iota // bytes allocated over the program's life (the default)
	ByAllocObjects               // objects allocated
	ByInuseSpace                 // bytes live at the last GC
	ByInuseObjects               // objects live at the last GC
)

var sortNames = [...]string{"alloc_space", "alloc_objects", "inuse_space", "inuse_objects"}

// String returns the pprof sample type name, such as "alloc_space".
func (b SortBy) String() string {
	if b >= 0 && int(b) < len(sortNames) {
		return sortNames[b]
	}
	return fmt.Sprintf("SortBy(%d)", int(b))
}

// Attribution selects which frame of a stack a sample is charged to.
type Attribution int

// The ways to charge a sample to a site.
const (
	// AttrUser charges the first frame, from the leaf, for which the user
	// predicate holds: the line in the user's code that caused the
	// allocation. A stack without such a frame is charged to its leaf.
	AttrUser Attribution = iota
	// AttrFlat charges the leaf frame: the function that allocated,
	// which is often runtime.growslice or io.copyBuffer.
	AttrFlat
	// AttrCumulative charges every distinct frame on the stack once, as
	// pprof's cum column does, so values add up to more than the total.
	AttrCumulative
)

// SiteOptions controls how Top ranks allocation sites.
type SiteOptions struct {
	Sort        SortBy
	Attribution Attribution
	// N keeps only the first N sites; 0 keeps them all.
	N int
	// User reports whether a function, fully qualified as in
	// "github.com/a/b.(*T).M", is the user's own code. Nil means
	// DefaultUser. UserModules and NotDependencies build common ones.
	User func(fn string) bool
}

// Site is a source line charged with allocations, with the evidence for
// the charge.
type Site struct {
	Function string // function containing the line, fully qualified
	File     string // source file as recorded in the binary
	Line     int    // 1-based; 0 when unknown

	AllocBytes   int64 // bytes allocated here over the profile
	AllocObjects int64 // objects allocated here
	InuseBytes   int64 // bytes allocated here and live at the last GC
	InuseObjects int64 // objects allocated here and live at the last GC

	Share   float64 // AllocBytes as a fraction of the profile's total alloc bytes (0–1)
	AvgSize float64 // average object size in bytes: AllocBytes / AllocObjects

	// Via names the function that really allocated, when it is not
	// Function: "io.copyBuffer" for io.Copy's buffer, "runtime.growslice"
	// for append. Empty when the site itself allocated, and also when
	// the allocating function belongs to the runtime: Go heap profiles
	// omit a stack's leading runtime frames, so append (runtime.growslice),
	// s += x (runtime.concatstrings) and make(map) (runtime.makemap) are
	// charged straight to the user's line with no Via.
	Via string
	// User reports that Function satisfied the user predicate; false when
	// no frame did and the site stands for the stack's leaf.
	User bool
	// Stack is the heaviest stack charged to the site, leaf first.
	Stack []Frame
	// Stacks counts the distinct stacks charged to the site.
	Stacks int
}

// Pos returns "file:line".
func (s Site) Pos() string { return fmt.Sprintf("%s:%d", s.File, s.Line) }

// ShortLived returns the fraction of the bytes allocated at the site that
// were no longer live at the last GC, 1 − inuse/alloc: the garbage that
// makes the collector run. It is 0 when nothing was allocated.
func (s Site) ShortLived() float64 {
	if s.AllocBytes <= 0 {
		return 0
	}
	f := 1 - float64(s.InuseBytes)/float64(s.AllocBytes)
	return max(0, min(1, f))
}

// PerOp divides a site's allocations by the number of operations (requests,
// benchmark iterations) the profile covers. It returns zeros when ops is not
// positive.
func PerOp(s Site, ops int64) (bytes, objects float64) {
	if ops <= 0 {
		return 0, 0
	}
	return float64(s.AllocBytes) / float64(ops), float64(s.AllocObjects) / float64(ops)
}

// Top is a ranking of allocation sites and an account of what was left out.
type Top struct {
	Sort        SortBy
	Attribution Attribution
	Sites       []Site // best first

	Total       int   // sites before the cut to N
	Dropped     int   // sites left out by the cut
	DroppedMax  int64 // largest sort value among the dropped sites
	DroppedSum  int64 // sort value of all dropped sites together
	ProfileSum  int64 // the profile's total of the sort value, dropped samples included
	EmptyStacks int   // samples with no frame, charged to no site
	// SamplesDropped counts the samples Read left out of a profile too
	// large to read whole (Profile.SamplesDropped), and SamplesDroppedSum
	// is their sort value: part of ProfileSum, charged to no site.
	SamplesDropped    int
	SamplesDroppedSum int64
}

// String summarizes the ranking the way `go tool pprof -top` heads its
// output: how much of the total the shown sites cover and what was dropped.
func (t *Top) String() string {
	shown := t.ProfileSum - t.DroppedSum - t.SamplesDroppedSum
	pct := 0.0
	if t.ProfileSum > 0 {
		pct = 100 * float64(shown) / float64(t.ProfileSum)
	}
	s := fmt.Sprintf("showing %d of %s, %.1f%% of %d %s", len(t.Sites), plural.S(t.Total, "site"), pct, t.ProfileSum, t.Sort)
	if t.Dropped > 0 {
		s += fmt.Sprintf("; dropped %s (%s <= %d)", plural.S(t.Dropped, "site"), t.Sort, t.DroppedMax)
	}
	if t.EmptyStacks > 0 {
		s += fmt.Sprintf("; %s without a stack", plural.S(t.EmptyStacks, "sample"))
	}
	if t.SamplesDropped > 0 {
		s += fmt.Sprintf("; %s not read (%s %d)", plural.Count(t.SamplesDropped, "lightest sample", "lightest samples"), t.Sort, t.SamplesDroppedSum)
	}
	return s
}

// Sites returns the ranked sites; see Top.
func (p *Profile) Sites(opts SiteOptions) []Site { return p.Top(opts).Sites }

type siteKey struct {
	fn, file string
	line     int
	addr     uint64
}

type siteAgg struct {
	key     siteKey
	v       [4]int64
	best    int64   // sort value of the heaviest stack
	stack   []int32 // the heaviest stack
	via     string
	user    bool
	stacks  int
	lastRef int // last sample index that touched the site, for AttrCumulative
}

// Top charges every sample to a site according to opts and ranks the
// sites, heaviest first. Ties are broken by function, file and line so the
// order is stable.
func (p *Profile) Top(opts SiteOptions) *Top {
	vi := sortIndex(opts.Sort)
	c := newCharger(p, opts.User, vi)
	t := &Top{Sort: opts.Sort, Attribution: opts.Attribution, SamplesDropped: p.SamplesDropped, SamplesDroppedSum: p.dropped[vi]}
	t.ProfileSum = p.dropped[vi]
	for si := range p.samples {
		s := &p.samples[si]
		t.ProfileSum += s.v[vi]
		if len(s.stack) == 0 {
			t.EmptyStacks++
			continue
		}
		c.chargeSample(si, s, opts.Attribution)
	}
	sites, stacks := p.aggSites(c.aggs)
	order := rankSites(sites, vi)
	t.Total = len(sites)
	n := t.cut(sites, order, vi, opts.N)
	t.Sites = p.withStacks(sites, stacks, order[:n])
	return t
}

// charger charges samples to the sites of one profile.
type charger struct {
	p      *Profile
	vi     int // index of the sort value in sample.v
	userFn func(fn string) bool
	// isUser caches userFn per distinct frame, so that it is asked once
	// per frame of the profile rather than once per frame of every stack:
	// 0 unknown, 1 no, 2 yes.
	isUser []int8
	aggs   map[siteKey]*siteAgg
}

func newCharger(p *Profile, userFn func(fn string) bool, vi int) *charger {
	if userFn == nil {
		userFn = DefaultUser
	}
	return &charger{
		p:      p,
		vi:     vi,
		userFn: userFn,
		isUser: make([]int8, len(p.frames)),
		aggs:   make(map[siteKey]*siteAgg),
	}
}

// user reports whether frame i is the user's code.
func (c *charger) user(i int32) bool {
	if c.isUser[i] == 0 {
		c.isUser[i] = 1
		if c.userFn(c.p.frames[i].Function) {
			c.isUser[i] = 2
		}
	}
	return c.isUser[i] == 2
}

// chargeSample charges sample si, whose stack is not empty, to the sites
// the attribution names.
func (c *charger) chargeSample(si int, s *sample, attr Attribution) {
	switch attr {
	case AttrFlat:
		c.charge(si, s, s.stack[0], "", c.user(s.stack[0]))
	case AttrCumulative:
		for _, f := range s.stack {
			c.charge(si, s, f, "", c.user(f))
		}
	default:
		at := -1
		for i, f := range s.stack {
			if c.user(f) {
				at = i
				break
			}
		}
		if at < 0 {
			c.charge(si, s, s.stack[0], "", false)
			return
		}
		c.charge(si, s, s.stack[at], c.p.allocator(s.stack[:at]), true)
	}
}

// charge adds sample si to the site of frame fi, once however often the
// frame recurs on the stack.
func (c *charger) charge(si int, s *sample, fi int32, via string, isUser bool) {
	f := &c.p.frames[fi]
	k := siteKey{f.Function, f.File, f.Line, 0}
	if f.Function == "" {
		k.addr = f.Address
	}
	a := c.aggs[k]
	if a == nil {
		a = &siteAgg{key: k, lastRef: -1}
		c.aggs[k] = a
	}
	if a.lastRef == si {
		return // recursion: count once per sample
	}
	a.lastRef = si
	for i := range a.v {
		a.v[i] += s.v[i]
	}
	a.stacks++
	if a.stack == nil || s.v[c.vi] > a.best {
		a.best, a.stack, a.via, a.user = s.v[c.vi], s.stack, via, isUser
	}
}

// aggSites turns the sites charged into Sites, without their stacks, and
// returns the heaviest stack of each beside it.
func (p *Profile) aggSites(aggs map[siteKey]*siteAgg) ([]Site, [][]int32) {
	sites := make([]Site, 0, len(aggs))
	stacks := make([][]int32, 0, len(aggs))
	for _, a := range aggs {
		s := Site{
			Function:     a.key.fn,
			File:         a.key.file,
			Line:         a.key.line,
			AllocBytes:   a.v[vAllocBytes],
			AllocObjects: a.v[vAllocObjects],
			InuseBytes:   a.v[vInuseBytes],
			InuseObjects: a.v[vInuseObjects],
			Via:          a.via,
			User:         a.user,
			Stacks:       a.stacks,
		}
		if s.Function == "" {
			s.Function = fmt.Sprintf("%#x", a.key.addr)
		}
		if p.TotalAllocBytes > 0 {
			s.Share = float64(s.AllocBytes) / float64(p.TotalAllocBytes)
		}
		if s.AllocObjects > 0 {
			s.AvgSize = float64(s.AllocBytes) / float64(s.AllocObjects)
		}
		sites = append(sites, s)
		stacks = append(stacks, a.stack)
	}
	return sites, stacks
}

// rankSites returns the indices of sites, heaviest by the sort value vi
// first, then by bytes allocated, function, file and line.
func rankSites(sites []Site, vi int) []int {
	order := make([]int, len(sites))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		a, b := &sites[i], &sites[j]
		return cmp.Or(
			cmp.Compare(siteValue(*b, vi), siteValue(*a, vi)),
			cmp.Compare(b.AllocBytes, a.AllocBytes),
			cmp.Compare(a.Function, b.Function),
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
		)
	})
	return order
}

// cut accounts in t for the sites ranked beyond the first n (all of them
// kept when n is 0) and returns how many sites are shown.
func (t *Top) cut(sites []Site, order []int, vi, n int) int {
	if n <= 0 || len(order) <= n {
		return len(order)
	}
	for _, i := range order[n:] {
		v := siteValue(sites[i], vi)
		t.DroppedSum += v
		t.DroppedMax = max(t.DroppedMax, v)
	}
	t.Dropped = len(order) - n
	return n
}

// withStacks returns the sites shown, in order, each with its heaviest
// stack written out as frames: only those shown pay for it.
func (p *Profile) withStacks(sites []Site, stacks [][]int32, shown []int) []Site {
	out := make([]Site, len(shown))
	for k, i := range shown {
		s := sites[i]
		s.Stack = make([]Frame, len(stacks[i]))
		for j, fi := range stacks[i] {
			s.Stack[j] = p.frames[fi]
		}
		out[k] = s
	}
	return out
}

// allocator names the function that allocated for a stack whose user frame
// lies above the given leaf frames: the first symbolized one.
func (p *Profile) allocator(below []int32) string {
	for _, i := range below {
		if f := &p.frames[i]; f.Function != "" {
			return f.Function
		}
	}
	return ""
}

func sortIndex(b SortBy) int {
	switch b {
	case ByAllocObjects:
		return vAllocObjects
	case ByInuseSpace:
		return vInuseBytes
	case ByInuseObjects:
		return vInuseObjects
	}
	return vAllocBytes
}

func siteValue(s Site, vi int) int64 {
	switch vi {
	case vAllocObjects:
		return s.AllocObjects
	case vInuseBytes:
		return s.InuseBytes
	case vInuseObjects:
		return s.InuseObjects
	}
	return s.AllocBytes
}
