// Package plural writes counts with their nouns in English: "1 site",
// "2 sites". The messages of every package use it, so that none says
// "dropped 1 sites".
package plural

import "strconv"

// Count returns n followed by one when n is 1, else by many: Count(1,
// "site", "sites") is "1 site", Count(0, "site", "sites") "0 sites".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// S returns n followed by noun, with an s unless n is 1: S(3, "cycle") is
// "3 cycles".
func S(n int, noun string) string {
	return Count(n, noun, noun+"s")
}
