package pacer

import (
	"math"
	"strings"
	"testing"
)

// Sizes as the runtime reads them (parseByteCount): ParseRuntimeSize agrees
// on every row, ParseSize on every row but 1.5GiB.
var runtimeSizes = []struct {
	in   string
	want int64
	ok   bool
}{
	{"0", 0, true},
	{"1024", 1024, true},
	{"+5", 5, true}, // strconv.ParseInt, as in the runtime, takes a sign
	{"5B", 5, true},
	{"0B", 0, true},
	{"1KiB", 1 << 10, true},
	{"48MiB", 48 << 20, true},
	{"2GiB", 2 << 30, true},
	{"1TiB", 1 << 40, true},
	{"8388607TiB", 8388607 << 40, true},
	{"9223372036854775807", math.MaxInt64, true},
	{"8388608TiB", 0, false}, // overflows int64
	{"9223372036854775808", 0, false},
	{"", 0, false},
	{"B", 0, false},
	{"iB", 0, false},
	{"MiB", 0, false},
	{"1.5GiB", 0, false}, // whole numbers only
	{"1.5", 0, false},
	{"48MB", 0, false}, // decimal units are not accepted
	{"48M", 0, false},
	{"48mib", 0, false},
	{"48 MiB", 0, false},
	{"48PiB", 0, false},
	{"-1", 0, false},
	{"-1MiB", 0, false},
	{"1e9", 0, false},
	{"0x10", 0, false},
}

func TestParseRuntimeSize(t *testing.T) {
	for _, tt := range runtimeSizes {
		got, err := ParseRuntimeSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseRuntimeSize(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	_, err := ParseRuntimeSize("1.5GiB")
	if err == nil || !strings.Contains(err.Error(), "1536MiB") {
		t.Errorf("ParseRuntimeSize(1.5GiB) error %v does not suggest 1536MiB", err)
	}
}

func TestParseSize(t *testing.T) {
	// On the command line a fraction before a binary unit is also taken;
	// everything else is as the runtime reads it.
	fractions := map[string]int64{
		"1.5GiB":                    3 << 29,
		"0.5MiB":                    1 << 19,
		"2.25KiB":                   2304,
		"1.1TiB":                    1<<40 + 109951162777, // rounded down to a byte
		"0.0000001KiB":              0,
		"8388607.5TiB":              8388607<<40 + 1<<39,
		"1.5":                       -1, // bytes are whole
		"1.5B":                      -1,
		".5GiB":                     -1,
		"1.GiB":                     -1,
		"1.5.5GiB":                  -1,
		"-1.5GiB":                   -1,
		"+1.5GiB":                   -1,
		"1.5gib":                    -1,
		"1.5GB":                     -1,
		"8388608.0TiB":              -1, // overflows int64
		"1.5 GiB":                   -1,
		"1.5e3MiB":                  -1,
		"99999999999999999999.5KiB": -1,
	}
	for _, tt := range runtimeSizes {
		if tt.in == "1.5GiB" {
			continue
		}
		fractions[tt.in] = tt.want
		if !tt.ok {
			fractions[tt.in] = -1
		}
	}
	for in, want := range fractions {
		got, err := ParseSize(in)
		if want < 0 {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, want an error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestSizeHints(t *testing.T) {
	tests := []struct{ in, hint string }{
		{"48MB", "binary units"},
		{"48M", "binary units"},
		{"1e9", "exponent"},
		{"1.5", "a fraction needs a unit"},
		{"-1", "negative"},
		{"", "empty"},
	}
	for _, tt := range tests {
		_, err := ParseSize(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.hint) {
			t.Errorf("ParseSize(%q) error %v, want it to say %q", tt.in, err, tt.hint)
		}
	}
}

// FuzzParseSize checks that the command-line parser agrees with the
// runtime's wherever the runtime accepts a value, never returns a negative
// size, and that every size it accepts comes back unchanged through the
// runtime's syntax.
func FuzzParseSize(f *testing.F) {
	for _, tt := range runtimeSizes {
		f.Add(tt.in)
	}
	for _, s := range []string{"1.5GiB", "0.5MiB", "8388607.5TiB", "1.1TiB", "1.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "size ") {
				t.Fatalf("ParseSize(%q): error %q does not name the size", s, err)
			}
			if _, rerr := ParseRuntimeSize(s); rerr == nil {
				t.Fatalf("ParseSize(%q) refuses what the runtime takes: %v", s, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		if r, rerr := ParseRuntimeSize(s); rerr == nil && r != n {
			t.Fatalf("ParseSize(%q) = %d, the runtime reads %d", s, n, r)
		}
		if n > 0 {
			back, err := ParseRuntimeSize(GOMEMLIMIT(n))
			if err != nil || back != n {
				t.Fatalf("GOMEMLIMIT(%d) = %q reads back as %d, %v", n, GOMEMLIMIT(n), back, err)
			}
		}
	})
}

func TestParseMemoryLimitAndGOGC(t *testing.T) {
	lims := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"off", 0, true},
		{"", 0, true},
		{"1GiB", 1 << 30, true},
		{"0", 0, false},
		{"1GB", 0, false},
		{"1.5GiB", 3 << 29, true},
	}
	for _, tt := range lims {
		got, err := ParseMemoryLimit(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseMemoryLimit(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	// A program's environment is read as the runtime reads it.
	if _, err := ParseGOMEMLIMIT("1.5GiB"); err == nil {
		t.Error("ParseGOMEMLIMIT(1.5GiB) succeeded; the runtime refuses it")
	}
	if n, err := ParseGOMEMLIMIT("1536MiB"); err != nil || n != 3<<29 {
		t.Errorf("ParseGOMEMLIMIT(1536MiB) = %d, %v", n, err)
	}
	gogcs := []struct {
		in   string
		want int
		ok   bool
	}{
		{"off", Off, true},
		{"100", 100, true},
		{"0", 0, true},
		{"-5", Off, true},
		{"OFF", 0, false},
		{"1.5", 0, false},
		{"", 0, false},
		{"99999999999", 0, false}, // the runtime reads an int32 and would use 100
		{"2147483647", 2147483647, true},
	}
	if _, err := ParseGOGC("99999999999"); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("ParseGOGC(99999999999): error %v, want one saying it is out of range", err)
	}
	for _, tt := range gogcs {
		got, err := ParseGOGC(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseGOGC(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		in         int64
		human, env string
	}{
		{0, "0B", "off"},
		{512, "512B", "512"},
		{48 << 20, "48MiB", "48MiB"},
		{3 << 29, "1.5GiB", "1536MiB"},
		{1<<30 + 1, "1GiB", "1073741825"},
		{1900 << 20, "1.9GiB", "1900MiB"},
	}
	for _, tt := range tests {
		if got := FormatSize(tt.in); got != tt.human {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.in, got, tt.human)
		}
		if got := GOMEMLIMIT(tt.in); got != tt.env {
			t.Errorf("GOMEMLIMIT(%d) = %q, want %q", tt.in, got, tt.env)
		}
		if tt.in > 0 {
			if n, err := ParseRuntimeSize(GOMEMLIMIT(tt.in)); err != nil || n != tt.in {
				t.Errorf("ParseSize(GOMEMLIMIT(%d)) = %d, %v", tt.in, n, err)
			}
		}
	}
}
