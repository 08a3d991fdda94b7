package a

import "time"

func loop(events chan int) {
	for {
		select {
		case <-events:
		case <-time.After(time.Second): // want `before Go 1.23 each one stays in memory until it fires`
		}
	}
}

func tick(events chan int) {
	for range events {
		<-time.Tick(time.Second) // want `never stopped nor collected \(before Go 1.23\)`
	}
}
