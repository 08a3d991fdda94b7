// Command top prints the heaviest allocation sites of a heap profile, one
// line each. The heapprof benchmarks time it against `go tool pprof -top`
// to include process start-up in the comparison.
//
//	go run ./heapprof/testdata/top [-n 10] [-flat] PROFILE
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/gcdoctor/gcdoctor/heapprof"
)

func main() {
	n := flag.Int("n", 10, "sites to print")
	flat := flag.Bool("flat", false, "charge the allocating frame instead of the user's")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: top [-n N] [-flat] PROFILE")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "top:", err)
		os.Exit(1)
	}
	p, err := heapprof.Read(f, flag.Arg(0))
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "top:", err)
		os.Exit(1)
	}
	opts := heapprof.SiteOptions{N: *n}
	if *flat {
		opts.Attribution = heapprof.AttrFlat
	}
	t := p.Top(opts)
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(w, t)
	for _, s := range t.Sites {
		via := ""
		if s.Via != "" {
			via = " via " + s.Via
		}
		fmt.Fprintf(w, "%12d %6.2f%% %10d %5.1f%% short-lived  %s %s%s\n",
			s.AllocBytes, 100*s.Share, s.AllocObjects, 100*s.ShortLived(), s.Function, s.Pos(), via)
	}
	w.Flush()
}
