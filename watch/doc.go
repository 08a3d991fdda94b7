// Package watch follows a running Go program's garbage collector interval
// by interval, for gcdoctor watch.
//
// A Source reads the program: a service's own endpoints (the live
// package's sources: gcdoctor's agent, /debug/pprof/heap?debug=1,
// /metrics, expvar), or a program watch starts itself with
// GODEBUG=gctrace=1, whose cycles it reads as they are printed. Either
// gives, at each poll, the live.KPIs of the interval since the previous
// poll and of the recent span the rules judge.
//
// A Session polls a Source every interval and keeps a bounded history: the
// Frames it hands out hold the interval's Point, the history for
// sparklines, and the findings diagnose makes of the recent span, with
// when each first appeared. Screen draws a Frame for a terminal; Point's
// JSON is the --json-lines record; a Source records what it saw as a bundle
// that gcdoctor doctor reads.
package watch
