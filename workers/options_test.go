package workers

import (
	"math"
	"testing"
)

func TestOptionsCheck(t *testing.T) {
	for _, tt := range []struct {
		util float64
		err  string
	}{
		{1, ""},
		{0.5, ""},
		{0, "--utilization must be more than 0 and at most 1, not 0"},
		{1.5, "--utilization must be more than 0 and at most 1, not 1.5"},
		{-0.5, "--utilization must be more than 0 and at most 1, not -0.5"},
		{math.NaN(), "--utilization must be more than 0 and at most 1, not NaN"},
	} {
		o := Options{Utilization: tt.util}
		got := ""
		if err := o.Check(); err != nil {
			got = err.Error()
		}
		if got != tt.err {
			t.Errorf("Check(%v) = %q, want %q", tt.util, got, tt.err)
		}
	}
}
