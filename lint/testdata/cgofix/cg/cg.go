// Package cg calls C and has findings whose fixes cgo's rewrite must not
// displace.
package cg

/*
static int answer(void) { return 42; }
*/
import "C"

import "fmt"

// Names lists the names of the users, in order.
func Names(users []string) []string {
	var names []string
	// The names keep the order of the users, which is the order the caller gave them in; callers rely on it.
	for _, u := range users {
		names = append(names, u)
	}
	return names
}

// Keys formats the ids.
func Keys(ids []int) []string {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = fmt.Sprintf("%d", id)
	}
	return keys
}

// Answers repeats C's answer; its fix would edit a line cgo rewrites.
func Answers(n []int) []C.int {
	var out []C.int
	for range n {
		out = append(out, C.answer())
	}
	return out
}
