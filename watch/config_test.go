package watch

import (
	"testing"
	"time"
)

func TestConfigCheck(t *testing.T) {
	for _, tt := range []struct {
		interval, forDur time.Duration
		err              string
	}{
		{time.Second, 0, ""},
		{MinInterval, MaxFor, ""},
		{MinInterval - 1, 0, "--interval must be between " + MinInterval.String() + " and " + MaxInterval.String()},
		{MaxInterval + 1, 0, "--interval must be between " + MinInterval.String() + " and " + MaxInterval.String()},
		{time.Second, -1, "--for must be between 0 (until stopped) and " + MaxFor.String()},
		{time.Second, MaxFor + 1, "--for must be between 0 (until stopped) and " + MaxFor.String()},
	} {
		c := Config{Interval: tt.interval, For: tt.forDur}
		got := ""
		if err := c.Check(); err != nil {
			got = err.Error()
		}
		if got != tt.err {
			t.Errorf("Check(%v, %v) = %q, want %q", tt.interval, tt.forDur, got, tt.err)
		}
	}
}
