package gctrace

// fastModern parses a well-formed Go 1.5+ cycle line (starting at "gc ")
// in one straight pass, without error bookkeeping. It returns false at the
// first surprise, and the caller then runs the careful parser, which finds
// the same fields or explains what is wrong. Nearly every line of a real
// log takes this path, which is what makes the Reader fast.
//
// It reads the head ("gc N @Ts U%: "), the clock and CPU times, names the
// times by the format their count and separators reveal, and leaves the
// heap sizes to fastHeap. The head and the times stay in one function on
// purpose: split into a call per step, the fast path cost the Reader
// several percent.
func fastModern(b []byte, cy *Cycle) bool {
	i := 3 // "gc "
	if len(b) < 60 || b[2] != ' ' {
		return false
	}
	dev := false
	if b[i] == '#' {
		dev = true
		i++
	}
	var ok bool
	var v int64
	if v, i, ok = fastInt(b, i); !ok || !at(b, i, " @") {
		return false
	}
	cy.Num = int(v)
	var f float64
	if f, i, ok = fastFloat(b, i+2); !ok || !at(b, i, "s ") {
		return false
	}
	cy.At, cy.HasAt = f, true
	if v, i, ok = fastInt(b, i+2); !ok || !at(b, i, "%: ") {
		return false
	}
	cy.Util = int(v)
	i += 3

	// The clock phases, "A+B+C", then the CPU times, "A+B/C/D+E".
	var clock [5]float64
	nc := 0
	for {
		if nc == len(clock) {
			return false
		}
		if clock[nc], i, ok = fastFloat(b, i); !ok {
			return false
		}
		nc++
		if i < len(b) && b[i] == '+' {
			i++
			continue
		}
		break
	}
	if !at(b, i, " ms clock, ") {
		return false
	}
	i += len(" ms clock, ")
	var cpu [7]float64
	var seps [7]byte
	np := 0
	for {
		if np == len(cpu) {
			return false
		}
		if cpu[np], i, ok = fastFloat(b, i); !ok {
			return false
		}
		if i < len(b) && (b[i] == '+' || b[i] == '/') {
			seps[np] = b[i]
			np++
			i++
			continue
		}
		np++
		break
	}
	if !at(b, i, " ms cpu, ") {
		return false
	}
	i += len(" ms cpu, ")
	switch {
	case nc == 3 && np == 5 && seps[0] == '+' && seps[1] == '/' && seps[2] == '/' && seps[3] == '+':
		cy.Clock = Phases{SweepTerm: clock[0], Mark: clock[1], MarkTerm: clock[2]}
		cy.CPU = CPUTimes{SweepTerm: cpu[0], Assist: cpu[1], Background: cpu[2], Idle: cpu[3], MarkTerm: cpu[4]}
		cy.Format = FormatGo16
	case nc == 5 && np == 7 && seps[0] == '+' && seps[1] == '+' && seps[2] == '+' && seps[3] == '/' && seps[4] == '/' && seps[5] == '+':
		cy.Clock = Phases{SweepTerm: clock[0], Scan: clock[1], Sync: clock[2], Mark: clock[3], MarkTerm: clock[4]}
		cy.CPU = CPUTimes{SweepTerm: cpu[0], Scan: cpu[1], Sync: cpu[2], Assist: cpu[3], Background: cpu[4], Idle: cpu[5], MarkTerm: cpu[6]}
		cy.Format = FormatGo15
		if dev {
			cy.Format = FormatGo15Dev
		}
	default:
		return false
	}
	return fastHeap(b, i, cy)
}

// fastHeap reads the rest of the line from i: "S->E->L MB, G MB goal, "
// then, since Go 1.18, "K MB stacks, H MB globals, ", and "N P".
func fastHeap(b []byte, i int, cy *Cycle) bool {
	var ok bool
	if cy.HeapStart, i, ok = fastInt(b, i); !ok || !at(b, i, "->") {
		return false
	}
	if cy.HeapEnd, i, ok = fastInt(b, i+2); !ok || !at(b, i, "->") {
		return false
	}
	if cy.HeapLive, i, ok = fastInt(b, i+2); !ok || !at(b, i, " MB, ") {
		return false
	}
	if cy.HeapGoal, i, ok = fastInt(b, i+5); !ok || !at(b, i, " MB goal, ") {
		return false
	}
	var v int64
	if v, i, ok = fastInt(b, i+len(" MB goal, ")); !ok {
		return false
	}
	cy.Stacks, cy.Globals = -1, -1
	if at(b, i, " MB stacks, ") {
		cy.Stacks = v
		if cy.Globals, i, ok = fastInt(b, i+len(" MB stacks, ")); !ok || !at(b, i, " MB globals, ") {
			return false
		}
		if v, i, ok = fastInt(b, i+len(" MB globals, ")); !ok {
			return false
		}
		if cy.Format != FormatGo16 {
			return false
		}
		cy.Format = FormatGo118
	}
	if !at(b, i, " P") {
		return false
	}
	cy.Procs = int(v)
	cy.Forced = containsForced(b[i+2:])
	cy.Objects, cy.Goroutines = -1, -1
	return true
}

// at reports whether s occurs in b at i.
func at(b []byte, i int, s string) bool {
	return i+len(s) <= len(b) && string(b[i:i+len(s)]) == s
}

func fastInt(b []byte, i int) (int64, int, bool) {
	start := i
	var v int64
	for i < len(b) {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		v = v*10 + int64(d)
		i++
	}
	n := i - start
	return v, i, n > 0 && n <= 18
}

func fastFloat(b []byte, i int) (float64, int, bool) {
	start := i
	var ip uint64
	for i < len(b) {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		ip = ip*10 + uint64(d)
		i++
	}
	if n := i - start; n == 0 || n > 18 {
		return 0, i, false
	}
	if i >= len(b) || b[i] != '.' {
		return float64(ip), i, true
	}
	i++
	fs := i
	var fp uint64
	for i < len(b) {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		fp = fp*10 + uint64(d)
		i++
	}
	if n := i - fs; n == 0 || n > 18 {
		return 0, i, false
	}
	return float64(ip) + float64(fp)/pow10[i-fs], i, true
}
