package a

import "time"

func loop(events chan int, timer int) {
	for {
		select {
		case <-events:
		case <-time.After(time.Second): // want `time.After in a loop allocates a new Timer and channel on every iteration; reuse one time.Timer with Reset`
		}
	}
}
