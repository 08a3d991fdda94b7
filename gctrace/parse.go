package gctrace

import "bytes"

// A cursor walks a line byte by byte. Parsing by hand, without regular
// expressions or per-line allocation, is what lets a Reader stream hundreds
// of MB/s.
type cursor struct {
	b   []byte
	i   int
	err string // first error; parsing stops at it
}

func (c *cursor) fail(msg string) {
	if c.err == "" {
		c.err = msg
	}
}

func (c *cursor) eof() bool { return c.i >= len(c.b) }

// lit consumes s or fails with msg.
func (c *cursor) lit(s, msg string) bool {
	if c.err != "" {
		return false
	}
	if len(c.b)-c.i < len(s) || string(c.b[c.i:c.i+len(s)]) != s {
		c.fail(msg)
		return false
	}
	c.i += len(s)
	return true
}

// peekLit reports whether s comes next, without consuming it.
func (c *cursor) peekLit(s string) bool {
	return len(c.b)-c.i >= len(s) && string(c.b[c.i:c.i+len(s)]) == s
}

func (c *cursor) skipSpaces() {
	for c.i < len(c.b) && (c.b[c.i] == ' ' || c.b[c.i] == '\t') {
		c.i++
	}
}

// int parses an unsigned decimal integer.
func (c *cursor) int(what string) int64 {
	if c.err != "" {
		return 0
	}
	start := c.i
	var v int64
	for c.i < len(c.b) && isDigit(c.b[c.i]) {
		if v > (1<<62)/10 {
			c.fail(what + " out of range")
			return 0
		}
		v = v*10 + int64(c.b[c.i]-'0')
		c.i++
	}
	if c.i == start {
		c.fail("expected " + what)
	}
	return v
}

// pow10 holds the divisors for up to 18 decimal places.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// float parses an unsigned decimal with an optional fraction, the only
// number shape the runtime prints in gctrace lines. Digits beyond the 18th
// are dropped: gctrace prints at most a few significant digits.
func (c *cursor) float(what string) float64 {
	if c.err != "" {
		return 0
	}
	b, i := c.b, c.i
	start := i
	var ip uint64
	for i < len(b) {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		if i-start >= 18 {
			c.i = i
			c.fail(what + " out of range")
			return 0
		}
		ip = ip*10 + uint64(d)
		i++
	}
	if i == start {
		c.i = i
		c.fail("expected " + what)
		return 0
	}
	v := float64(ip)
	if i < len(b) && b[i] == '.' {
		i++
		fs := i
		var fp uint64
		for i < len(b) {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			if i-fs < 18 {
				fp = fp*10 + uint64(d)
			}
			i++
		}
		if i == fs {
			c.i = i
			c.fail("expected digits after '.' in " + what)
			return 0
		}
		v += float64(fp) / pow10[min(i-fs, 18)]
	}
	c.i = i
	return v
}

// list parses numbers separated by any of seps and returns how many it read
// into dst and the separators seen. It stops at the first byte that is
// neither a number nor a separator.
func (c *cursor) list(dst []float64, seps []byte, what string) (int, []byte) {
	n := 0
	for {
		if n == len(dst) {
			c.fail("too many " + what)
			return n, seps[:0]
		}
		dst[n] = c.float(what)
		if c.err != "" {
			return n, seps[:0]
		}
		n++
		if c.i < len(c.b) && (c.b[c.i] == '+' || c.b[c.i] == '/') {
			seps = append(seps, c.b[c.i])
			c.i++
			continue
		}
		return n, seps
	}
}

// parseCycle parses a cycle line starting at "gc" into cy. It returns the
// column of the first error and a message, or msg == "" on success.
func parseCycle(line []byte, cy *Cycle) (col int, msg string) {
	if fastModern(line, cy) {
		return 0, ""
	}
	*cy = Cycle{Line: cy.Line, Process: cy.Process}
	c := cursor{b: line}
	c.i = 2 // "gc"
	if c.i < len(c.b) && isDigit(c.b[c.i]) {
		parsePre15(&c, cy)
	} else {
		parseModern(&c, cy)
	}
	if c.err != "" {
		if c.eof() {
			return c.i, c.err + " (line ends early)"
		}
		return c.i, c.err
	}
	return 0, ""
}

// parseModern parses the Go 1.5+ formats:
//
//	gc N @Ts U%: clock ms clock, cpu ms cpu, A->B->C MB, G MB goal[, S MB stacks, L MB globals], P P[ (forced)]
func parseModern(c *cursor, cy *Cycle) {
	c.lit(" ", "expected space after gc")
	dev := false
	if c.i < len(c.b) && c.b[c.i] == '#' {
		dev = true
		c.i++
	}
	cy.Num = int(c.int("cycle number"))
	c.lit(" @", "expected ' @' before the time")
	cy.At = c.float("time since start")
	cy.HasAt = c.err == ""
	c.lit("s ", "expected 's ' after the time")
	cy.Util = int(c.int("GC CPU percentage"))
	c.lit("%", "expected '%' after the GC CPU percentage")
	// Go 1.26 may add a note such as " (checking for goroutine leaks)".
	for c.err == "" && c.i < len(c.b) && c.b[c.i] != ':' {
		c.i++
	}
	c.lit(": ", "expected ': ' before the clock times")

	var clock [5]float64
	var sepBuf [8]byte
	nc, _ := c.list(clock[:], sepBuf[:0], "clock time")
	c.lit(" ms clock, ", "expected ' ms clock, '")
	if c.err != "" {
		return
	}
	var cpu [7]float64
	np, seps := c.list(cpu[:], sepBuf[:0], "cpu time")
	c.lit(" ms cpu, ", "expected ' ms cpu, '")
	if c.err != "" {
		return
	}
	switch {
	case nc == 3 && np == 5 && string(seps) == "+//+":
		cy.Clock = Phases{SweepTerm: clock[0], Mark: clock[1], MarkTerm: clock[2]}
		cy.CPU = CPUTimes{SweepTerm: cpu[0], Assist: cpu[1], Background: cpu[2], Idle: cpu[3], MarkTerm: cpu[4]}
		cy.Format = FormatGo16
	case nc == 5 && np == 7 && string(seps) == "+++//+":
		cy.Clock = Phases{SweepTerm: clock[0], Scan: clock[1], Sync: clock[2], Mark: clock[3], MarkTerm: clock[4]}
		cy.CPU = CPUTimes{SweepTerm: cpu[0], Scan: cpu[1], Sync: cpu[2], Assist: cpu[3], Background: cpu[4], Idle: cpu[5], MarkTerm: cpu[6]}
		cy.Format = FormatGo15
		if dev {
			cy.Format = FormatGo15Dev
		}
	default:
		c.fail("unexpected number of clock or cpu phases")
		return
	}

	cy.HeapStart = c.int("heap size at start")
	c.lit("->", "expected '->' after the heap size at start")
	cy.HeapEnd = c.int("heap size at end")
	c.lit("->", "expected '->' after the heap size at end")
	cy.HeapLive = c.int("live heap")
	c.lit(" MB, ", "expected ' MB, ' after the live heap")
	cy.HeapGoal = c.int("heap goal")
	c.lit(" MB goal, ", "expected ' MB goal, '")
	cy.Stacks, cy.Globals = -1, -1
	v := c.int("P count or stacks")
	if c.err != "" {
		return
	}
	if c.peekLit(" MB stacks, ") {
		c.i += len(" MB stacks, ")
		cy.Stacks = v
		cy.Globals = c.int("globals")
		c.lit(" MB globals, ", "expected ' MB globals, '")
		v = c.int("P count")
		if cy.Format == FormatGo16 {
			cy.Format = FormatGo118
		}
	}
	cy.Procs = int(v)
	c.lit(" P", "expected ' P' after the P count")
	if c.err != "" {
		return
	}
	rest := c.b[c.i:]
	cy.Forced = containsForced(rest)
	cy.Objects, cy.Goroutines = -1, -1
}

func containsForced(b []byte) bool {
	const f = "(forced)"
	for i := 0; i+len(f) <= len(b); i++ {
		if b[i] == '(' && string(b[i:i+len(f)]) == f {
			return true
		}
	}
	return false
}

// parsePre15 parses the format of Go 1.4 and older, where the whole
// collection stopped the world:
//
//	gcN(P): a+b+c+d us, X -> Y MB, O (A-F) objects, G goroutines, …
//
// Go 1.2 and 1.3 printed three or four phases and "ms"; all are accepted.
func parsePre15(c *cursor, cy *Cycle) {
	cy.Format = FormatPre15
	cy.Num = int(c.int("cycle number"))
	c.lit("(", "expected '(' after the cycle number")
	cy.Procs = int(c.int("P count"))
	c.lit("): ", "expected '): ' after the P count")
	var ph [6]float64
	var sepBuf [8]byte
	n, seps := c.list(ph[:], sepBuf[:0], "phase time")
	for _, s := range seps {
		if s != '+' {
			c.fail("unexpected '/' in phase times")
		}
	}
	if c.err != "" {
		return
	}
	scale := 1.0
	switch {
	case c.peekLit(" us, "):
		scale = 1e-3
		c.i += len(" us, ")
	case c.peekLit(" ms, "):
		c.i += len(" ms, ")
	default:
		c.fail("expected ' us, ' or ' ms, ' after the phase times")
		return
	}
	total := 0.0
	for _, v := range ph[:n] {
		total += v
	}
	cy.Clock = Phases{STW: total * scale}
	cy.HeapStart = c.int("heap size before")
	c.lit(" -> ", "expected ' -> ' between heap sizes")
	cy.HeapEnd = c.int("heap size after")
	c.lit(" MB", "expected ' MB' after the heap sizes")
	if c.err != "" {
		return
	}
	cy.Util, cy.HeapLive, cy.HeapGoal, cy.Stacks, cy.Globals = -1, -1, -1, -1, -1
	cy.Objects, cy.Goroutines = -1, -1
	// The rest varies by version; pick out the counts that are there.
	rest := c.b[c.i:]
	cy.Objects = numberBefore(rest, " (", " objects")
	cy.Goroutines = numberBefore(rest, " goroutines", "")
}

// numberBefore finds the integer that directly precedes marker in b (and,
// when then is not empty, is followed by then within 40 bytes after the
// marker).
func numberBefore(b []byte, marker, then string) int64 {
	for off := 0; ; {
		k := bytes.Index(b[off:], []byte(marker))
		if k < 0 {
			return -1
		}
		i := off + k
		off = i + 1
		if then != "" {
			w := b[i:min(len(b), i+len(marker)+40)]
			if !bytes.Contains(w, []byte(then)) {
				continue
			}
		}
		j := i
		for j > 0 && isDigit(b[j-1]) {
			j--
		}
		if j == i {
			continue
		}
		var v int64
		for _, d := range b[j:i] {
			if v > (1<<62)/10 {
				return -1
			}
			v = v*10 + int64(d-'0')
		}
		return v
	}
}

// parseScvg parses the scavenger lines of Go ≤ 1.18:
//
//	scvg3: inuse: 36, idle: 108, sys: 145, released: 108, consumed: 36 (MB)
//	scvg2: 15 MB released
//	scvg: 8 KB released
//	scvg: inuse: 3, idle: 60, sys: 63, released: 0, consumed: 63 (MB)
func parseScvg(b []byte, s *Scavenge) bool {
	c := cursor{b: b, i: 4}
	for c.i < len(c.b) && isDigit(c.b[c.i]) {
		c.i++
	}
	if !c.lit(": ", "") {
		return false
	}
	s.Released, s.InUse, s.Idle, s.Sys, s.Consumed, s.Util = -1, -1, -1, -1, -1, -1
	if c.peekLit("inuse: ") {
		fields := [...]struct {
			name string
			dst  *int64
		}{{"inuse: ", &s.InUse}, {"idle: ", &s.Idle}, {"sys: ", &s.Sys}, {"released: ", &s.Released}, {"consumed: ", &s.Consumed}}
		for k, f := range fields {
			if k > 0 && !c.lit(", ", "") {
				return false
			}
			if !c.lit(f.name, "") {
				return false
			}
			*f.dst = c.int("size") << 20
		}
		return c.err == "" && c.peekLit(" (MB)")
	}
	v := c.int("size")
	switch {
	case c.peekLit(" MB released"):
		s.Released = v << 20
	case c.peekLit(" KB released"):
		s.Released = v << 10
	default:
		return false
	}
	return c.err == ""
}

// parseScav parses the scavenger line of Go 1.19 and later:
//
//	scav 0 KiB work (bg), 0 KiB work (eager), 1204 KiB now, 99% util
//
// and the shorter form of Go 1.19–1.20 ("scav N KiB work, N KiB total, N% util").
func parseScav(b []byte, s *Scavenge) bool {
	c := cursor{b: b, i: 5}
	s.Released, s.InUse, s.Idle, s.Sys, s.Consumed, s.Util = -1, -1, -1, -1, -1, -1
	for c.err == "" && !c.eof() {
		v := c.int("size")
		if c.err != "" {
			return false
		}
		switch {
		case c.peekLit(" KiB now") || c.peekLit(" KiB total"):
			s.Released = v << 10
		case c.peekLit("% util"):
			s.Util = int(v)
			return true
		}
		// Skip to the next number.
		for !c.eof() && !isDigit(c.b[c.i]) {
			c.i++
		}
	}
	return false
}
