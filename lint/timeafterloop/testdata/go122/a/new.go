//go:build go1.23

package a

import "time"

// The build constraint raises this file's version to Go 1.23.
func loopNew(events chan int) {
	for {
		select {
		case <-events:
		case <-time.After(time.Second): // want `allocates a new Timer and channel on every iteration`
		}
	}
}
