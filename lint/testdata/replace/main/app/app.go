// Package app uses lib.
package app

import "example.com/lib"

// Quoted returns the users' names from lib, quoted.
func Quoted(users []string) []string {
	names := lib.Names(users)
	var out []string
	for _, n := range names {
		out = append(out, "'"+n+"'")
	}
	return out
}
