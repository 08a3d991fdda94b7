package a

import (
	"context"
	"time"
)

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

// Not flagged: the timer is replaced only after it fired, so one lives
// across iterations and is allocated per expiry (nats-server raft.go).
func resend(events chan int, d time.Duration) {
	resendC := time.After(d)
	for {
		select {
		case <-resendC:
			d *= 2
			resendC = time.After(d)
		case ev := <-events:
			handle(ev)
		}
	}
}

// Not flagged: armed only when not armed already.
func lazy(events chan int) {
	var timeout <-chan time.Time
	for {
		if timeout == nil {
			timeout = time.After(time.Second)
		}
		select {
		case <-timeout:
			timeout = nil
		case ev := <-events:
			handle(ev)
		}
	}
}

// Flagged: re-armed on every event, leaving the running timer behind.
func idleReset(events chan int) {
	timeout := time.After(time.Second)
	for {
		select {
		case <-timeout:
			return
		case ev := <-events:
			handle(ev)
			timeout = time.After(time.Second) // want `time.After in a loop`
		}
	}
}

// Not flagged: the loop ends after the select whichever case wins
// (nats-server server.go).
func waitOnce(ready chan struct{}, poll func() bool) bool {
	for {
		if poll() {
			select {
			case <-ready:
			case <-time.After(time.Second):
				return false
			}
			return true
		}
	}
}

// Not flagged: the break after the select ends the loop.
func waitBreak(ready chan struct{}) {
	for {
		select {
		case <-ready:
		case <-time.After(time.Second):
		}
		break
	}
}

// Flagged: one case continues the loop before the return after the select.
func waitContinue(ready chan int, next func() time.Duration) {
	for {
		select {
		case v := <-ready:
			if v == 0 {
				continue
			}
		case <-time.After(next()): // want `time.After in a loop`
		}
		return
	}
}

// Flagged: the break ends the switch, not the loop.
func waitSwitch(ready chan int, next func() time.Duration) {
	for {
		switch {
		case true:
			select {
			case <-ready:
			case <-time.After(next()): // want `time.After in a loop`
			}
			break
		}
	}
}

var never = make(chan time.Time)

// Not flagged: armed only when it holds the sentinel (gitea
// workergroup.go).
func debounce(events chan int) {
	var dispatch <-chan time.Time = never
	for {
		select {
		case ev := <-events:
			handle(ev)
			if dispatch == never {
				dispatch = time.After(time.Second)
			}
		case <-dispatch:
			dispatch = never
		}
	}
}

// Not flagged: a back-off sleep that cancellation interrupts; the loop
// ends at its next check of ctx (prometheus queue_manager.go).
func backoff(ctx context.Context, try func() bool, d time.Duration) {
	for {
		select {
		case <-ctx.Done():
			return
		default:
		}
		if try() {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
}

// Not flagged: the same, checked by the loop condition.
func backoffCond(ctx context.Context, try func(), d time.Duration) {
	for ctx.Err() == nil {
		try()
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
}

// Flagged: after cancellation the loop goes on, each iteration leaving a
// timer behind.
func backoffUnchecked(ctx context.Context, items []int, next func() time.Duration) {
	for range items {
		select {
		case <-ctx.Done():
		case <-time.After(next()): // want `time.After in a loop`
		}
	}
}

// Not flagged: stored in a branch that then leaves the loop, so at most
// once (rclone waiter.go).
func grace(results chan int, timeout <-chan time.Time) int {
	for {
		select {
		case r := <-results:
			handle(r)
		case <-timeout:
			grace := time.After(time.Second)
			select {
			case r := <-results:
				return r
			case <-grace:
			}
			return 0
		}
	}
}

// Not flagged: a quit request ends the loop through its condition
// (go-ethereum usbwallet).
func heartbeat(quit chan chan error, beat func() error) {
	var (
		errc chan error
		err  error
	)
	for errc == nil && err == nil {
		select {
		case errc = <-quit:
			continue
		case <-time.After(time.Second):
		}
		err = beat()
	}
	if errc != nil {
		errc <- err
	}
}

// Not flagged: the first deadline fires at most once, so the periodic
// timer is left behind at most once (mimir partition_handler.go).
func snapshots(ctx context.Context, first time.Duration, every time.Duration, publish func()) {
	var firstSnapshot <-chan time.Time
	if first > 0 {
		firstSnapshot = time.After(first)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-firstSnapshot:
			publish()
		case <-time.After(every):
			firstSnapshot = nil
			publish()
		}
	}
}

// Flagged: a ticker's channel fires again and again.
func withTicker(ctx context.Context, tick *time.Ticker, next func() time.Duration) {
	c := tick.C
	for {
		select {
		case <-ctx.Done():
			return
		case <-c:
		case <-time.After(next()): // want `time.After in a loop`
		}
	}
}
