package pacer

import (
	"math"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
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
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
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
	}
	for _, tt := range lims {
		got, err := ParseMemoryLimit(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseMemoryLimit(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
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
			if n, err := ParseSize(GOMEMLIMIT(tt.in)); err != nil || n != tt.in {
				t.Errorf("ParseSize(GOMEMLIMIT(%d)) = %d, %v", tt.in, n, err)
			}
		}
	}
}
