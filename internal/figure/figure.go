// Package figure formats the figures gcdoctor prints, the one way every
// finding, report and table writes them: three significant digits, no
// exponent, "n/a" for a figure the evidence cannot give.
package figure

import (
	"math"
	"strconv"
)

// Num formats v with three significant digits (whole numbers from 100 up),
// the precision gctrace itself gives: 1367, 17.8, 3.10, 0.240, 0.0031.
// NaN and infinities are "n/a".
func Num(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case math.Abs(v) >= 0.01:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}
