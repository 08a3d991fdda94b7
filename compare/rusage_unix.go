//go:build unix

package compare

import "syscall"

// childrenCPU returns the user plus system CPU time, in seconds, of every
// child process this process has waited for. Its growth across one run is
// the CPU time of that run's program (and of the processes the program
// itself waited for), which collect.Result does not report.
func childrenCPU() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0, false
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime), true
}
