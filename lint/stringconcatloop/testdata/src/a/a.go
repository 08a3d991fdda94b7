package a

import "fmt"


func join(words []string) string {
	var out string
	for _, w := range words {
		out += w + " " // want `string out is built with \+= in a loop`
	}
	return out
}

func withLen(words []string) int {
	s := ""
	for _, w := range words {
		if len(s) > 0 {
			s += "," // want `string s is built with \+= in a loop`
		}
		s += w
	}
	fmt.Println(s)
	return len(s)
}

// Flagged without fix: a closure uses the string.
func closure(words []string) func() string {
	out := ""
	for _, w := range words {
		out += w // want `string out is built`
	}
	return func() string { return out }
}

// Flagged without fix: initial value.
func prefix(words []string) string {
	out := "> "
	for _, w := range words {
		out += w // want `string out is built`
	}
	return out
}

// Not flagged: declared in the loop.
func inside(words []string) {
	for _, w := range words {
		line := ""
		line += w
		line += "\n"
		fmt.Print(line)
	}
}

// Not flagged: reset on each iteration.
func reset(words []string) {
	var line string
	for _, w := range words {
		line = ""
		line += w
		fmt.Print(line)
	}
}

// Not flagged: outside a loop.
func once(a, b string) string {
	s := a
	s += b
	return s
}

// Not flagged: a field.
type doc struct{ text string }

func (d *doc) add(words []string) {
	for _, w := range words {
		d.text += w
	}
}
