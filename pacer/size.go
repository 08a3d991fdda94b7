package pacer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSize parses a byte count the way the runtime parses GOMEMLIMIT
// (parseByteCount in runtime/string.go): a non-negative decimal integer,
// optionally followed by "B", "KiB", "MiB", "GiB" or "TiB". The runtime
// accepts only binary (IEC) units and whole numbers: "48MiB" and "1024" are
// valid, "1.5GiB", "48MB", "48M" and "48mib" are not, and a GOMEMLIMIT like
// those makes the program throw "malformed GOMEMLIMIT" at start-up. Like
// strconv.ParseInt, which the runtime uses, a leading "+" is allowed.
func ParseSize(s string) (int64, error) {
	n, ok := parseByteCount(s)
	if !ok {
		return 0, fmt.Errorf("size %q: %s", s, sizeHint(s))
	}
	return n, nil
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

// sizeHint explains why the runtime would reject s, for the common mistakes.
func sizeHint(s string) string {
	switch {
	case s == "":
		return "empty"
	case strings.ContainsAny(s, ".eE") && strings.ContainsAny(s, "0123456789"):
		return "the runtime accepts whole numbers only (write 1536MiB, not 1.5GiB)"
	case strings.HasSuffix(s, "MB") || strings.HasSuffix(s, "GB") || strings.HasSuffix(s, "KB") || strings.HasSuffix(s, "TB"):
		return "the runtime accepts binary units only: B, KiB, MiB, GiB, TiB"
	case strings.HasPrefix(s, "-"):
		return "negative"
	}
	return "want a non-negative whole number of bytes with an optional B, KiB, MiB, GiB or TiB suffix"
}

// ParseMemoryLimit parses a GOMEMLIMIT value: "off" or "" mean no limit and
// give 0; anything else is a size as ParseSize reads it.
func ParseMemoryLimit(s string) (int64, error) {
	if s == "" || s == "off" {
		return 0, nil
	}
	n, err := ParseSize(s)
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
