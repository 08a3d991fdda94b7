package pacer

import (
	"strings"
	"testing"
)

func TestParseSettings(t *testing.T) {
	s, err := ParseSettings([]string{"100", "off"}, []string{"512MiB", "1GiB"})
	if err != nil || len(s) != 4 || s[0] != (Setting{GOGC: 100, MemoryLimit: 512 << 20}) || s[3] != (Setting{GOGC: Off, MemoryLimit: 1 << 30}) {
		t.Fatalf("%v, %v", s, err)
	}
	if s, err := ParseSettings([]string{"200"}, nil); err != nil || len(s) != 1 || s[0].MemoryLimit != 0 {
		t.Errorf("no limits: %v, %v", s, err)
	}
	for _, bad := range [][2][]string{
		{{"fast"}, nil},
		{{"100"}, {"1.5GB"}},
		{nil, nil},
		{make([]string, 101), make([]string, 10)},
	} {
		if _, err := ParseSettings(bad[0], bad[1]); err == nil {
			t.Errorf("%q × %q accepted", bad[0], bad[1])
		} else if len(bad[0]) == 1 && !strings.Contains(err.Error(), bad[0][0]) && (len(bad[1]) == 0 || !strings.Contains(err.Error(), bad[1][0])) {
			t.Errorf("error %q does not name the value", err)
		}
	}
}

func TestParseSettingFlags(t *testing.T) {
	if s, err := ParseSettingFlags([]string{"100", "off"}, []string{"1GiB"}, "--gogc", "--memlimit"); err != nil || len(s) != 2 {
		t.Fatalf("%v, %v", s, err)
	}
	for _, tt := range []struct {
		gogcs, limits []string
		prefix        string
	}{
		{nil, nil, "--gogc: give at least one value"},
		{[]string{"fast"}, nil, "--gogc fast: "},
		{[]string{"100"}, []string{"1.5GB"}, "--memlimit 1.5GB: "},
		{make([]string, 101), make([]string, 10), "1010 GOGC × GOMEMLIMIT settings"},
	} {
		_, err := ParseSettingFlags(tt.gogcs, tt.limits, "--gogc", "--memlimit")
		if err == nil || !strings.HasPrefix(err.Error(), tt.prefix) {
			t.Errorf("%q × %q: %v, want %q…", tt.gogcs, tt.limits, err, tt.prefix)
		}
	}
}
