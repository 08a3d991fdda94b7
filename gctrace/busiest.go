package gctrace

// Busiest returns the process that did the most GC work: the one with the
// most GC CPU time, or, when the log format has no CPU figures, the most
// cycles. It is the process a single model or chart of a many-process log
// is about (in a go build log, the largest compile rather than the go
// command). It returns nil for a log without segments.
func (l *Log) Busiest() *Segment {
	var best *Segment
	for _, s := range l.Segments {
		if best == nil || busier(s, best) {
			best = s
		}
	}
	return best
}

// busier reports whether a did more GC work than b.
func busier(a, b *Segment) bool {
	ca, cb := a.Summary.GCCPUMS, b.Summary.GCCPUMS
	if Valid(ca) && Valid(cb) && ca != cb {
		return ca > cb
	}
	return a.Summary.Cycles > b.Summary.Cycles
}
