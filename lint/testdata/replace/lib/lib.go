// Package lib is a dependency that main replaces with this directory.
package lib

// Names lists the names, in order.
func Names(users []string) []string {
	var names []string
	for _, u := range users {
		names = append(names, u)
	}
	return names
}
