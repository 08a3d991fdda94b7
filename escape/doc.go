// Package escape runs the Go compiler's escape analysis and explains every
// heap allocation it decides on: what is allocated, where, and the chain of
// data flow that forces it off the stack.
//
// The compiler reports its decisions in two forms:
//
//   - -gcflags=-m=2 prints text lines such as "moved to heap: x",
//     "make([]byte, n) escapes to heap", "leaking param: p" and
//     "x does not escape", each decision preceded by its explanation
//     ("x escapes to heap in F:", "  flow: ~r0 ← &x:",
//     "    from return &x (return) at f.go:7:2").
//   - -gcflags=-json=0,DIR writes LSP diagnostics, one file per package,
//     with the explanation as related information. gopls reads it for its
//     compiler-details view.
//
// This package uses the text. Tried with Go 1.26, the JSON ("version 0")
// carries the same flow explanations but loses what a diagnosis needs:
// it never records "does not escape", it labels a variable moved to heap
// and an expression escaping with codes ("escape", "escapes") used
// inconsistently, it repeats sites as records with empty messages and
// mixes inlining markers into the chains, and it is only written when the
// compiler really runs, so every analysis needs a fresh directory and a
// cache miss. The text has read the same way since Go 1.0 ("moved to heap",
// "escapes to heap", "leaking param"), the flow lines since Go 1.13; the go
// command replays it from the build cache; and it is what people paste into
// issues, so [Parse] reads pasted output and saved fixtures as well as
// [Analyze] reads the compiler's.
package escape
