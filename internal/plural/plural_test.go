package plural

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		n         int
		one, many string
		want      string
	}{
		{0, "site", "sites", "0 sites"},
		{1, "site", "sites", "1 site"},
		{2, "process", "processes", "2 processes"},
		{-1, "byte", "bytes", "-1 bytes"},
	}
	for _, tt := range tests {
		if got := Count(tt.n, tt.one, tt.many); got != tt.want {
			t.Errorf("Count(%d, %q, %q) = %q, want %q", tt.n, tt.one, tt.many, got, tt.want)
		}
	}
	if got := S(1, "cycle"); got != "1 cycle" {
		t.Errorf("S(1, cycle) = %q", got)
	}
	if got := S(7, "cycle"); got != "7 cycles" {
		t.Errorf("S(7, cycle) = %q", got)
	}
}
