// Package broken does not compile; Analyze must report the error.
package broken

func F() int {
	return undefinedName
}
