package figure

import (
	"math"
	"testing"
)

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 3: "3.00", 3.1: "3.10", 0.24: "0.240", 17.82: "17.8", 1367.4: "1367",
		0.0031: "0.0031", -2.5: "-2.50", math.NaN(): "n/a", math.Inf(1): "n/a"} {
		if got := Num(v); got != want {
			t.Errorf("Num(%v) = %q, want %q", v, got, want)
		}
	}
}
