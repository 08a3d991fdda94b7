package broken

import "runtime"

func Bad() int {
	return undefined + 1
}

func Loop(n int) {
	for i := 0; i < n; i++ {
		runtime.GC()
	}
}
