// Package layout holds no code: its tests hold the module's source tree to
// the project's rules of layout, so that a change that breaks one fails
// `go test ./...` instead of waiting for a reviewer to notice.
// docs/architecture.md says where each kind of thing lives, why
// internal/cli only wires and why an analyzer never prints; the limits
// below put numbers on those rules.
//
// The tests parse every non-test Go file of the module with go/parser,
// skipping testdata and vendor directories, directories whose names start
// with "." or "_" (which the go command ignores too) and nested modules
// such as examples/xlsx. They check that:
//
//   - no function, method or function literal is longer than 120 lines,
//     from its func keyword to its closing brace. A function that long
//     does several things; its steps deserve names. Literals are named
//     after the compiler's names in stack traces: F.func1, (*T).M.func2,
//     F.func1.1, and init.func1 at package level (counted per file).
//   - internal/cli, which turns flags into calls and holds no analysis,
//     stays within 110 lines of non-test Go per command it defines (its
//     cobra.Command literals), counted as physical lines of every file in
//     the directory and below: about what a command's flags, its checks
//     of them and its calls take. More means analysis or formatting has
//     crept into the wiring; the budget grows with the commands, not with
//     what they do.
//   - the analyzers (gctrace, heapprof, exectrace, escape, pacer, workers,
//     diagnose, compare, evidence and bundle) never write to standard
//     output or standard error themselves: no fmt.Print*, no use of
//     os.Stdout or os.Stderr (which fmt.Fprint*, Write and io.Copy to them
//     need), no print or println, no log or log/slog call that writes
//     through the default logger. An analyzer returns what it found and
//     report formats it, so that every command can send it anywhere in
//     any format.
//
// Each failure names the file, the line and the function. The checks are
// syntactic, so they are fast and need no build; a package that names its
// own function print or println is not taken for the builtin.
package layout
