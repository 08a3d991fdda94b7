// Package allocs holds one function per reason the compiler moves a value
// to the heap. Each decision line carries a comment naming the kind of
// decision the compiler must report for it.
package allocs

// Huge declares a local array larger than the 10 MB limit for variables.
func Huge() int {
	var a [11 << 20]byte // want:too large for stack
	a[5] = 1
	return int(a[5])
}

// Implicit allocates more than the 64 KB limit for implicit allocations.
func Implicit() int {
	p := new([1 << 17]byte) // want:too large for stack
	p[1] = 2
	return int(p[1])
}

// Sized makes a slice whose size is known only at run time.
func Sized(n int) []byte {
	return make([]byte, n) // want:escapes to heap
}

// SizedLocal makes a variable-size slice that never leaves the function.
func SizedLocal(n int) int {
	b := make([]byte, n) // want:does not escape
	b[0] = 1
	return len(b)
}

type point struct{ x, y int }

// Addr returns the address of a local.
func Addr() *point {
	p := point{1, 2} // want:moved to heap
	return &p
}

var sink any

// Iface stores an int into an interface that outlives the call.
func Iface(v int) {
	sink = v // want:escapes to heap
}

// Counter returns a closure that captures a local by reference.
func Counter() func() int {
	n := 0 // want:moved to heap
	return func() int { n++; return n }
}

// TenMB returns a 10 MB buffer made by a helper.
func TenMB() []byte {
	return make([]byte, 10<<20) // want:too large for stack
}

// Keep returns its argument, so the argument leaks to the result.
func Keep(p *point) *point { // want:leaking param
	return p
}
