package pacer

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// ParseSize parses a size given on gcdoctor's command line (--memlimit,
// --budget): what the runtime accepts for GOMEMLIMIT, and also a decimal
// fraction before a binary unit, such as "1.5GiB", rounded down to whole
// bytes. The runtime itself accepts whole numbers only, so every size
// gcdoctor hands back to a program or prints as advice is formatted by
// GOMEMLIMIT ("1536MiB"). Decimal units ("48MB", "48M") and lower case are
// refused with a hint rather than guessed at: GOMEMLIMIT has no decimal
// units and a MB is not a MiB.
func ParseSize(s string) (int64, error) {
	if n, ok := parseByteCount(s); ok {
		return n, nil
	}
	if n, ok := parseFraction(s); ok {
		return n, nil
	}
	return 0, fmt.Errorf("size %q: %s", s, sizeHint(s, false))
}

// ParseRuntimeSize parses a byte count exactly as the runtime parses
// GOMEMLIMIT (parseByteCount in runtime/string.go): a non-negative decimal
// integer, optionally followed by "B", "KiB", "MiB", "GiB" or "TiB". It is
// for values read from a program's environment, where "1.5GiB" or "48MB"
// make the program throw "malformed GOMEMLIMIT" at start-up. Like
// strconv.ParseInt, which the runtime uses, a leading "+" is allowed.
func ParseRuntimeSize(s string) (int64, error) {
	n, ok := parseByteCount(s)
	if !ok {
		return 0, fmt.Errorf("size %q: %s", s, sizeHint(s, true))
	}
	return n, nil
}

// parseFraction reads a decimal fraction followed by a binary unit, such
// as "1.5GiB" or "0.25MiB": digits, one point, at least one digit after it.
func parseFraction(s string) (int64, bool) {
	var shift uint
	num := ""
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}} {
		if strings.HasSuffix(s, u.suffix) {
			num, shift = strings.TrimSuffix(s, u.suffix), u.shift
			break
		}
	}
	whole, frac, ok := strings.Cut(num, ".")
	if !ok || shift == 0 || frac == "" || !allDigits(whole) || !allDigits(frac) {
		return 0, false
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > math.MaxInt64>>shift {
		return 0, false
	}
	// Integer arithmetic rather than a float, so that 1.1TiB is the same
	// number of bytes everywhere; digits past the twelfth are below a byte
	// even for TiB.
	if len(frac) > 12 {
		frac = frac[:12]
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	den := int64(math.Pow10(len(frac)))
	n := w<<shift + mulDiv(f, int64(1)<<shift, den)
	if n < 0 {
		return 0, false
	}
	return n, true
}

// mulDiv returns a × b / c rounded down, for non-negative a, b and positive
// c, without overflowing when a × b does not fit in 64 bits.
func mulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseByteCount mirrors runtime.parseByteCount rule for rule.
func parseByteCount(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	last := s[len(s)-1]
	if last >= '0' && last <= '9' {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		return n, true
	}
	// Failing a trailing digit, it must end in 'B' with at least one digit
	// before it.
	if last != 'B' || len(s) < 2 {
		return 0, false
	}
	if c := s[len(s)-2]; c >= '0' && c <= '9' {
		n, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		return n, true
	} else if c != 'i' {
		return 0, false
	}
	if len(s) < 4 {
		return 0, false
	}
	power := 0
	switch s[len(s)-3] {
	case 'K':
		power = 1
	case 'M':
		power = 2
	case 'G':
		power = 3
	case 'T':
		power = 4
	default:
		return 0, false
	}
	m := uint64(1) << (10 * power)
	n, err := strconv.ParseInt(s[:len(s)-3], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	un := uint64(n)
	if un > math.MaxUint64/m || un*m > math.MaxInt64 {
		return 0, false
	}
	return int64(un * m), true
}

// sizeHint explains why s is refused, for the common mistakes; runtime
// says the value was read from a program's environment, where the runtime
// itself would refuse it.
func sizeHint(s string, runtime bool) string {
	switch {
	case s == "":
		return "empty"
	case runtime && strings.Contains(s, ".") && strings.ContainsAny(s, "0123456789"):
		return "the runtime accepts whole numbers only and stops the program at start-up (write 1536MiB, not 1.5GiB)"
	case strings.ContainsAny(s, "eE") && s[0] >= '0' && s[0] <= '9':
		return "want digits, not an exponent: write 1GiB or 1073741824"
	case strings.HasSuffix(s, "MB") || strings.HasSuffix(s, "GB") || strings.HasSuffix(s, "KB") || strings.HasSuffix(s, "TB") ||
		strings.HasSuffix(s, "M") || strings.HasSuffix(s, "G") || strings.HasSuffix(s, "K") || strings.HasSuffix(s, "T"):
		return "GOMEMLIMIT has binary units only: B, KiB, MiB, GiB, TiB (48MiB, not 48MB or 48M)"
	case strings.HasPrefix(s, "-"):
		return "negative"
	case strings.Contains(s, "."):
		return "a fraction needs a unit from KiB to TiB (1.5GiB); a count of bytes is whole"
	}
	return "want a non-negative number of bytes with an optional B, KiB, MiB, GiB or TiB suffix"
}

// ParseMemoryLimit parses a memory limit given on gcdoctor's command line:
// "off" or "" mean no limit and give 0; anything else is a size as
// ParseSize reads it. ParseGOMEMLIMIT is its strict twin for a program's
// environment.
func ParseMemoryLimit(s string) (int64, error) {
	return parseLimit(s, ParseSize)
}

// ParseGOMEMLIMIT parses the GOMEMLIMIT of a program's environment as the
// runtime does: "off" or "" give 0 and anything else must pass
// ParseRuntimeSize.
func ParseGOMEMLIMIT(s string) (int64, error) {
	return parseLimit(s, ParseRuntimeSize)
}

func parseLimit(s string, parse func(string) (int64, error)) (int64, error) {
	if s == "" || s == "off" {
		return 0, nil
	}
	n, err := parse(s)
	if err != nil {
		return 0, fmt.Errorf("GOMEMLIMIT: %w", err)
	}
	if n == 0 {
		// A limit of zero bytes is valid for the runtime (the GC runs
		// continuously), but 0 means "no limit" in Setting.
		return 0, fmt.Errorf("GOMEMLIMIT %q: a zero limit makes the GC run all the time", s)
	}
	return n, nil
}

// ParseGOGC parses a GOGC value: "off" gives -1 (no proportional GC) and a
// decimal integer gives itself; a negative number also means off, as it does
// for the runtime (setGCPercent in runtime/mgcpacer.go). Unlike the runtime,
// which silently uses 100 for a value it cannot parse (readGOGC), ParseGOGC
// returns an error.
func ParseGOGC(s string) (int, error) {
	if s == "off" {
		return Off, nil
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("GOGC %s is out of range: the runtime reads it as a 32-bit number, at most %d, and would use 100", s, math.MaxInt32)
	}
	if err != nil {
		return 0, fmt.Errorf("GOGC %q: want a whole number or off (the runtime would use 100)", s)
	}
	if n < 0 {
		return Off, nil
	}
	return int(n), nil
}

// FormatSize formats a byte count in the largest binary unit that keeps it
// readable, such as "48MiB" or "1.5GiB". The result is for people: only
// whole values (like "48MiB") can be given back to the runtime.
func FormatSize(b int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v := float64(b)
	i := 0
	for i < len(units)-1 && math.Abs(v) >= 1024 {
		v /= 1024
		i++
	}
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f%s", v, units[i])
	}
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f%s", v, units[i])
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".") + units[i]
}

// GOMEMLIMIT formats a byte count as a value the runtime accepts for
// GOMEMLIMIT, in the largest binary unit that divides it exactly.
func GOMEMLIMIT(b int64) string {
	if b <= 0 {
		return "off"
	}
	for _, u := range []struct {
		name  string
		shift uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if b%(1<<u.shift) == 0 {
			return strconv.FormatInt(b>>u.shift, 10) + u.name
		}
	}
	return strconv.FormatInt(b, 10)
}
