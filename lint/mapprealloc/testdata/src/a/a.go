package a

type user struct {
	ID   int
	Name string
}

func byID(users []*user) map[int]*user {
	m := map[int]*user{}
	for _, u := range users {
		m[u.ID] = u // want `map m gets one entry per iteration of a loop that runs len\(users\) times; create it with make\(map\[int\]\*user, len\(users\)\)`
	}
	return m
}

func counted(n int) map[int]bool {
	seen := make(map[int]bool)
	for i := 0; i < n; i++ {
		seen[i] = true // want `map seen gets one entry`
	}
	return seen
}

// Not flagged: conditional store.
func conditional(users []*user) map[int]*user {
	m := map[int]*user{}
	for _, u := range users {
		if u.Name != "" {
			m[u.ID] = u
		}
	}
	return m
}

// Not flagged: looks the key up first.
func lookup(users []*user) map[string]int {
	m := make(map[string]int)
	for _, u := range users {
		m[u.Name] = m[u.Name] + 1
	}
	return m
}

// Not flagged: already sized.
func sized(users []*user) map[int]*user {
	m := make(map[int]*user, len(users))
	for _, u := range users {
		m[u.ID] = u
	}
	return m
}

// Not flagged: non-empty literal.
func nonEmpty(users []*user) map[int]*user {
	m := map[int]*user{0: nil}
	for _, u := range users {
		m[u.ID] = u
	}
	return m
}

// Not flagged: unknown length.
func channel(ch chan *user) map[int]*user {
	m := map[int]*user{}
	for u := range ch {
		m[u.ID] = u
	}
	return m
}
