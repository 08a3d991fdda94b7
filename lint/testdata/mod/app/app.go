// Package app has one finding of every check that offers a fix.
package app

import (
	"fmt"
	"net/http"
	"regexp"
	"time"
)

type User struct {
	ID   int
	Name string
}

func Names(users []User) []string {
	var names []string
	for _, u := range users {
		names = append(names, u.Name)
	}
	return names
}

func ByID(users []User) map[int]User {
	m := map[int]User{}
	for _, u := range users {
		m[u.ID] = u
	}
	return m
}

func Join(words []string) string {
	out := ""
	for _, w := range words {
		out += w
	}
	return out
}

func Keys(ids []int) []string {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = fmt.Sprintf("%d", id)
	}
	return keys
}

func Handle(w http.ResponseWriter, r *http.Request) {
	if regexp.MustCompile(`^/users/\d+$`).MatchString(r.URL.Path) {
		fmt.Fprintln(w, "user")
	}
}

func Loop(events chan int, idle time.Duration) {
	for {
		select {
		case ev := <-events:
			fmt.Println(ev)
		case <-time.After(idle):
			fmt.Println("idle")
		}
	}
}
