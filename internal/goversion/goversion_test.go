package goversion

import "testing"

func TestMinor(t *testing.T) {
	for _, tc := range []struct {
		in    string
		minor int
		norm  string
		valid bool
	}{
		{"go1.21.5", 21, "go1.21.5", true},
		{"1.21", 21, "go1.21", true},
		{"go1.22rc1", 22, "go1.22rc1", true},
		{"go1.9", 9, "go1.9", true},
		{" go1.26.8 ", 26, "go1.26.8", true},
		{"go1", 0, "go1", true},
		{"devel go1.27-abc", 0, "godevel go1.27-abc", false},
		{"", 0, "", false},
		{"banana", 0, "gobanana", false},
		{"go2.1", 0, "go2.1", true},
	} {
		if got := Minor(tc.in); got != tc.minor {
			t.Errorf("Minor(%q) = %d, want %d", tc.in, got, tc.minor)
		}
		norm, ok := Normalize(tc.in)
		if norm != tc.norm || ok != tc.valid {
			t.Errorf("Normalize(%q) = %q, %v; want %q, %v", tc.in, norm, ok, tc.norm, tc.valid)
		}
	}
}
