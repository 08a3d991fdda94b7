package cgo

/*
static int answer(void) { return 42; }
*/
import "C"

import "runtime"

func Answer(n int) int {
	for i := 0; i < n; i++ {
		runtime.GC()
	}
	return int(C.answer())
}
