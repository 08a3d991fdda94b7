package a

type big struct {
	data [1 << 18]byte
}

func read() int {
	var buf [1 << 18]byte // want `local variable buf \(\[262144\]byte, 256 KiB\) is too large for the stack`
	return len(buf)
}

func copyBig(b *big) int {
	v := *b // want `local variable v \(big, 256 KiB\)`
	return len(v.data)
}

// Not flagged: fits on the stack.
func small() int {
	var buf [1 << 16]byte
	return len(buf)
}

// Not flagged: a pointer.
func ptr() int {
	p := new(big)
	return len(p.data)
}

// Not flagged: package level.
var global [1 << 20]byte

func init() {
	var once [1 << 18]byte // runs once
	_ = once
}

// Not flagged: escapes by design (its address is returned).
func newBig() *big {
	var b big
	return &b
}
