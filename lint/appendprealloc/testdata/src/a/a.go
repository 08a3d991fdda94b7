package a

type user struct{ Name string }

func rangeSlice(users []user) []string {
	var names []string
	for _, u := range users {
		names = append(names, u.Name) // want `names grows by one append per iteration of a loop that runs len\(users\) times`
	}
	return names
}

func rangeMapLiteral(m map[string]int) []string {
	keys := []string{}
	for k := range m {
		keys = append(keys, k) // want `keys grows by one append`
	}
	return keys
}

func counted(n int) []int {
	xs := make([]int, 0)
	for i := 0; i < n; i++ {
		xs = append(xs, i*i) // want `xs grows by one append per iteration of a loop that runs n times`
	}
	return xs
}

func rangeInt(n int) []int {
	var xs []int
	for i := range n {
		xs = append(xs, i) // want `xs grows`
	}
	return xs
}

// Not flagged: the append is conditional.
func conditional(users []user) []string {
	var names []string
	for _, u := range users {
		if u.Name != "" {
			names = append(names, u.Name)
		}
	}
	return names
}

// Not flagged: the loop may skip the append.
func withContinue(users []user) []string {
	var names []string
	for _, u := range users {
		if u.Name == "" {
			continue
		}
		names = append(names, u.Name)
	}
	return names
}

// Not flagged: the loop may stop early.
func withBreak(users []user) []string {
	var names []string
	for _, u := range users {
		names = append(names, u.Name)
		if len(u.Name) > 10 {
			break
		}
	}
	return names
}

// Not flagged: already has capacity.
func withCap(users []user) []string {
	names := make([]string, 0, len(users))
	for _, u := range users {
		names = append(names, u.Name)
	}
	return names
}

// Not flagged: used between its declaration and the loop.
func usedBetween(users []user) []string {
	var names []string
	names = append(names, "root")
	for _, u := range users {
		names = append(names, u.Name)
	}
	return names
}

// Not flagged: several appends per iteration.
func twoAppends(users []user) []string {
	var names []string
	for _, u := range users {
		names = append(names, u.Name)
		names = append(names, u.Name)
	}
	return names
}

// Not flagged: loop over a channel has no known length.
func channel(ch chan string) []string {
	var names []string
	for s := range ch {
		names = append(names, s)
	}
	return names
}

// Not flagged: the bound changes in the loop.
func changingBound(n int) []int {
	var xs []int
	for i := 0; i < n; i++ {
		xs = append(xs, i)
		if i == 3 {
			n--
		}
	}
	return xs
}

// Not flagged: the slice is reset in the loop.
func reset(users []user) []string {
	var names []string
	for _, u := range users {
		names = append(names, u.Name)
		if len(names) > 3 {
			names = nil
		}
	}
	return names
}

// Flagged, but no fix: the length source is reassigned in between.
func reassigned(users []user) []string {
	var names []string
	users = users[1:]
	for _, u := range users {
		names = append(names, u.Name) // want `names grows`
	}
	return names
}

// Flagged, but no fix: the range expression is declared after the slice.
func declaredAfter(get func() []user) []string {
	var names []string
	users := get()
	for _, u := range users {
		names = append(names, u.Name) // want `names grows`
	}
	return names
}
