// Package collect runs a Go program and gathers evidence about the cost of
// its garbage collector.
//
// Run starts the program with GODEBUG=gctrace=1 added to its environment,
// passes its output through while keeping a copy of its standard error (where
// the runtime writes the gctrace lines) and of the gctrace lines on its
// standard output (where go test puts the test binary's), samples its
// resident set size and CPU time, and records how it was run: Go version, GOGC, GOMEMLIMIT, GOMAXPROCS, CPU count
// and cgroup limits. With a bundle.Writer the evidence is written as a
// bundle that can be analysed later or on another machine.
//
// Sweep runs a program repeatedly under several GOGC and GOMEMLIMIT
// settings, and Bench builds a package's test binary and runs its
// benchmarks likewise. Both hand each run, as gathered, to a function of
// the caller's: package compare turns the runs into statistics.
//
// The go command needs more: it caches its tools' output, gctrace lines
// and all, and prints it again on every later build. Run therefore runs
// the tools under the binary that calls it, which a -toolexec in GOFLAGS
// names: that binary, started by the go command with the argument
// "-gcdoctor-toolexec", acts as the wrapper from this package's init, before
// its own main, so every program that calls Run can run the go command.
//
// Collection works on Linux, where the kernel exposes what is needed in
// /proc and /sys/fs/cgroup; elsewhere Run returns an error.
package collect
