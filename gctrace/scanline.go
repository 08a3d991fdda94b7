package gctrace

// parseScan parses a "scan:" line of GODEBUG=gctrace=2 (b starts at
// "scan: "). It returns the column (0-based) where parsing stopped and a
// message when the line does not parse.
//
//	scan: total A+B+C=T objs, S+D=N spans     Green Tea
//	scan: class 48B A+B+C=T objs, S+D=N spans
//	scan: class L A+B+C=T objs, S+D=N spans
//	scan: total T objs                        without Green Tea
//	scan: class 48B T objs
func parseScan(b []byte, s *Scan) (col int, msg string) {
	c := cursor{b: b}
	c.lit("scan: ", "expected scan:")
	switch {
	case c.peekLit("total "):
		c.i += len("total ")
	case c.peekLit("class L "):
		c.i += len("class L ")
		s.Class = LargeClass
	case c.peekLit("class "):
		c.i += len("class ")
		s.Class = c.int("size class")
		if s.Class == 0 {
			c.fail("size class of 0 bytes")
		}
		c.lit("B ", "expected B after the size class")
	default:
		c.fail("expected total or class")
	}
	first := c.int("object count")
	if c.err == "" && c.peekLit("+") {
		s.GreenTea = true
		s.Alone = first
		c.i++
		s.SpanSparse = c.int("sparse span object count")
		c.lit("+", "expected +")
		s.SpanDense = c.int("dense span object count")
		c.lit("=", "expected =")
		s.Objects = c.int("object total")
		c.lit(" objs, ", "expected objs,")
		s.SparseSpans = c.int("sparse span count")
		c.lit("+", "expected +")
		s.DenseSpans = c.int("dense span count")
		c.lit("=", "expected =")
		spans := c.int("span total")
		c.lit(" spans", "expected spans")
		if c.err == "" && (s.Objects != s.Alone+s.SpanSparse+s.SpanDense || spans != s.SparseSpans+s.DenseSpans) {
			c.fail("counts do not add up to their totals")
		}
	} else {
		s.Objects, s.Alone = first, first
		c.lit(" objs", "expected objs")
	}
	if c.err == "" {
		c.skipSpaces()
		if !c.eof() {
			c.fail("unexpected text after the counts")
		}
	}
	if c.err != "" {
		return c.i, c.err
	}
	return c.i, ""
}
