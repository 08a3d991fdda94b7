package gen

import "runtime"

func Loop2(n int) {
	for i := 0; i < n; i++ {
		runtime.GC()
	}
}
