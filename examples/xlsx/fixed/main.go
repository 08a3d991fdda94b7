// Command fixed writes the spreadsheet of ../problem with excelize's
// StreamWriter: rows are encoded as they are set (spilling to a temporary
// file past a threshold) instead of being kept as cells in memory.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/xuri/excelize/v2"

	"github.com/gcdoctor/gcdoctor/agent"
)

func main() {
	rows := flag.Int("rows", 50000, "rows to write")
	cols := flag.Int("cols", 10, "cells per row")
	flag.Parse()
	// Under gcdoctor run or doctor, the heap profile at the peak goes to
	// the bundle.
	defer agent.WatchHeapPeak()()

	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	row := make([]any, *cols)
	for r := 1; r <= *rows; r++ {
		for c := range row {
			row[c] = r*(*cols) + c
		}
		cell, err := excelize.CoordinatesToCellName(1, r)
		if err == nil {
			err = sw.SetRow(cell, row)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := sw.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n, err := f.WriteTo(io.Discard)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "xlsx bytes:", n)
}
