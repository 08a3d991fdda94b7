package a

import "time"

func handle(int) {}

func idleLoop(events chan int, idle time.Duration) {
	for {
		select {
		case ev := <-events:
			handle(ev)
		case <-time.After(idle): // want `time.After in a loop allocates a new Timer and channel on every iteration`
			return
		}
	}
}

func tick(events chan int) {
	for range events {
		<-time.Tick(time.Second) // want `time.Tick in a loop creates a new Ticker`
	}
}

func stored(events chan int) {
	for {
		timeout := time.After(time.Second) // want `time.After in a loop`
		select {
		case <-events:
		case <-timeout:
			return
		}
	}
}

// Not flagged: a sleep.
func sleep(n int) {
	for i := 0; i < n; i++ {
		<-time.After(time.Millisecond)
	}
}

// Not flagged: the other case leaves the loop, so a timer is abandoned at most once.
func retry(done chan struct{}, try func() bool) {
	for !try() {
		select {
		case <-done:
			return
		case <-time.After(time.Second):
		}
	}
}

// Not flagged: outside a loop.
func once(events chan int) {
	select {
	case <-events:
	case <-time.After(time.Second):
	}
}

// Not flagged: the loop is in the caller of the function literal.
func literal(events chan int) func() {
	for {
		return func() {
			select {
			case <-events:
			case <-time.After(time.Second):
			}
		}
	}
}

// Flagged without a fix: the duration has side effects.
func sideEffect(events chan int, next func() time.Duration) {
	for {
		select {
		case <-events:
		case <-time.After(next()): // want `time.After in a loop`
		}
	}
}
