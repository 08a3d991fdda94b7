package main

import "strings"

var sinkInts []int
var sinkString string

func appendCase(fix bool) {
	const n = 100000
	for range 20 {
		var s []int
		if fix {
			s = make([]int, 0, n)
		}
		for i := range n {
			s = append(s, i) // problem:append
		}
		sinkInts = s
	}
}

func concatCase(fix bool) {
	parts := make([]string, 2000)
	for i := range parts {
		parts[i] = "part"
	}
	for range 5 {
		if fix {
			var b strings.Builder
			b.Grow(len(parts) * 4)
			for _, p := range parts {
				b.WriteString(p)
			}
			sinkString = b.String()
			continue
		}
		s := ""
		for _, p := range parts {
			s += p // problem:concat
		}
		sinkString = s
	}
}
