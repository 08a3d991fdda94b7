package a

import "fmt"

type code int

type level int

func (l level) String() string { return "L" }

type path string

func conv(ints []int, i64 []int64, u8 []uint8, codes []code, names []path, flags []bool, s []string, levels []level) {
	for i := range ints {
		_ = fmt.Sprintf("%d", ints[i]) // want `fmt.Sprintf\("%d", x\) in a loop boxes x and interprets the format on every iteration; use strconv.Itoa\(x\)`
		_ = fmt.Sprintf("%v", i64[i])  // want `use strconv.FormatInt\(x, 10\)`
		_ = fmt.Sprintf("%d", u8[i])   // want `use strconv.FormatUint\(uint64\(x\), 10\)`
		_ = fmt.Sprintf("%d", codes[i]) // want `use strconv.FormatInt\(int64\(x\), 10\)`
		_ = fmt.Sprintf("%s", names[i]) // want `use string\(x\)`
		_ = fmt.Sprintf("%s", s[i]+"!") // want `use x`
		_ = fmt.Sprintf("%t", flags[i]) // want `use strconv.FormatBool\(x\)`

		// Not flagged: a String method changes the output.
		_ = fmt.Sprintf("%v", levels[i])
		// Not flagged: other verbs, several arguments, mismatched verbs.
		_ = fmt.Sprintf("%x", ints[i])
		_ = fmt.Sprintf("%d-%d", ints[i], ints[i])
		_ = fmt.Sprintf("%s", ints[i])
		_ = fmt.Sprintf("%d", s[i])
	}
	// Not flagged: outside a loop.
	_ = fmt.Sprintf("%d", len(ints))
}
