//go:build !unix

package compare

// childrenCPU reports that the CPU time of child processes is not known
// on this system.
func childrenCPU() (float64, bool) { return 0, false }
