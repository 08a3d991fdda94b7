// Package goversion reads Go release versions as build info, trace headers
// and users write them ("go1.21.5", "1.21", "go1.22rc1") and answers the one
// question gcdoctor's advice depends on: which minor release it is.
package goversion

import (
	"go/version"
	"strconv"
	"strings"
)

// Normalize returns v with the "go" prefix a user may leave out, and
// whether the result is a valid Go version in the sense of go/version.
func Normalize(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if v != "" && !strings.HasPrefix(v, "go") {
		v = "go" + v
	}
	return v, version.IsValid(v)
}

// Minor returns the minor release of a Go 1 version: 21 for "go1.21.5",
// "1.21" or "go1.21rc2". It returns 0 when v is not a valid Go version.
func Minor(v string) int {
	v, ok := Normalize(v)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimPrefix(version.Lang(v), "go1."))
	if err != nil {
		return 0
	}
	return n
}
